import type { Handlers } from "../../../generated/handlers.js";
import { deleteTransaction } from "../../domain/transactions/store.js";

export const delete_transaction: Handlers["delete_transaction"] = async (params, ctx) => {
  const snapshot = await deleteTransaction(ctx.db, ctx.caller.userId, params.transaction_id);
  return {
    result: { ...snapshot, warnings: [] },
    change: { action: "delete", resourceType: "transaction", resourceId: snapshot.transaction.id, before: snapshot, after: null },
  };
};
