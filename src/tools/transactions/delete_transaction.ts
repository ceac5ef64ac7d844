import type { Handlers } from "../../../generated/handlers.js";
import { deleteTransactionOf } from "../../domain/transactions/delete.js";

export const delete_transaction: Handlers["delete_transaction"] = async (params, ctx) => {
  const { transaction, counterpart, refunds } = await deleteTransactionOf(ctx, params);
  const snapshot = { transaction, counterpart, ...(refunds.length > 0 ? { refunds } : {}) };
  return {
    result: { ...snapshot, warnings: [] },
    change: { action: "delete", resourceType: "transaction", resourceId: transaction.id, before: snapshot, after: null },
  };
};
