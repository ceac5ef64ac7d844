import type { Handlers } from "../../../generated/handlers.js";
import { findTransactionRow, loadPair } from "../../domain/transactions/store.js";
import { notFound } from "../../errors.js";
import { assertRunningTotalsOf } from "../../domain/wallets/ceiling.js";

export const delete_transaction: Handlers["delete_transaction"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const row = await findTransactionRow(ctx.db, userId, params.transaction_id);
  if (!row) throw notFound("transaction", "transaction_id", params.transaction_id);
  const snapshot = await loadPair(ctx.db, row);
  const ids = [snapshot.transaction.id, ...(snapshot.counterpart ? [snapshot.counterpart.id] : [])];
  // Both legs of a transfer in one statement; their tags go with them (ON DELETE CASCADE, and explicitly).
  await ctx.db("transaction_tags").whereIn("transaction_id", ids).delete();
  await ctx.db("transactions").where({ user_id: userId }).whereIn("id", ids).delete();
  // Taking an income out can leave a balance beyond the bound that the income offset.
  await assertRunningTotalsOf(ctx.db, userId, [snapshot.transaction.wallet_id, ...(snapshot.counterpart ? [snapshot.counterpart.wallet_id] : [])], "transaction_id");
  return {
    result: { ...snapshot, warnings: [] },
    change: { action: "delete", resourceType: "transaction", resourceId: row.id, before: snapshot, after: null },
  };
};
