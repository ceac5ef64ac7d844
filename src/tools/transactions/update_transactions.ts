import type { Handlers } from "../../../generated/handlers.js";
import { updateTransactions } from "../../domain/transactions/bulk.js";

export const update_transactions: Handlers["update_transactions"] = async (params, ctx) => {
  const { result, audit } = await updateTransactions(ctx, params);
  return {
    result,
    // One audit entry for the whole edit, naming every row it changed (undo_change reverses it at once).
    change: { action: "bulk_update", resourceType: "transaction", resourceId: ctx.ids.next("blk"), before: null, after: audit },
  };
};
