import type { Handlers } from "../../../generated/handlers.js";
import { findTransactionRow, loadPair } from "../../domain/transactions/store.js";
import { notFound } from "../../errors.js";

export const delete_transaction: Handlers["delete_transaction"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const row = await findTransactionRow(ctx.db, userId, params.transaction_id);
  if (!row) throw notFound("transaction", "transaction_id", params.transaction_id);
  const snapshot = await loadPair(ctx.db, row);
  const ids = [snapshot.transaction.id, ...(snapshot.counterpart ? [snapshot.counterpart.id] : [])];
  // Both legs of a transfer in one statement; their tags go with them (ON DELETE CASCADE, and explicitly).
  await ctx.db("transaction_tags").whereIn("transaction_id", ids).delete();
  await ctx.db("transactions").where({ user_id: userId }).whereIn("id", ids).delete();
  return {
    result: { ...snapshot, warnings: [] },
    change: { action: "delete", resourceType: "transaction", resourceId: row.id, before: snapshot, after: null },
  };
};
