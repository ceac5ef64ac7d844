import type { Handlers } from "../../../generated/handlers.js";
import { updateTransaction } from "../../domain/transactions/update.js";
import { requireSomeChange } from "../require-change.js";

export const update_transaction: Handlers["update_transaction"] = async (params, ctx) => {
  requireSomeChange("update_transaction", "transaction_id", params);
  const { before, after, warnings } = await updateTransaction(ctx, params);
  return {
    result: { ...after, warnings },
    change: { action: "update", resourceType: "transaction", resourceId: params.transaction_id, before, after },
  };
};
