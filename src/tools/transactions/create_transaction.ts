import type { Handlers } from "../../../generated/handlers.js";
import { createTransaction } from "../../domain/transactions/write.js";

export const create_transaction: Handlers["create_transaction"] = async (params, ctx) => {
  const { transaction, counterpart, warnings } = await createTransaction(ctx, params);
  return {
    result: { transaction, counterpart, warnings },
    change: { action: "create", resourceType: "transaction", resourceId: transaction.id, before: null, after: { transaction, counterpart } },
  };
};
