import type { Handlers } from "../../../generated/handlers.js";
import { createFiledTransaction } from "../../domain/rules/file-new.js";

export const create_transaction: Handlers["create_transaction"] = async (params, ctx) => {
  const { transaction, counterpart, warnings } = await createFiledTransaction(ctx, params);
  return {
    result: { transaction, counterpart, warnings },
    change: { action: "create", resourceType: "transaction", resourceId: transaction.id, before: null, after: { transaction, counterpart } },
  };
};
