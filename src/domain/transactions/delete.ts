/**
 * delete_transaction: a transaction goes with everything that is part of it (the other leg of a transfer,
 * its split parts, its tags), and never leaves a link pointing at nothing (issue 39). The incomes that
 * refund it (refund_of) are the person's to decide: kept as plain income (no longer a refund, no longer
 * linked) or deleted too. Without that word the delete is refused, naming them, so that neither the dry
 * run nor the answer can hide them. The audit captures every row touched, so undo_change puts the links
 * back. Goal contributions that named a deleted transaction keep their id (the goals code reads it).
 */
import type { DeleteTransactionParams, Transaction } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { invalidParams, notFound } from "../../errors.js";
import { formatMinor } from "../../money/amount.js";
import { bindShownRecord } from "../shared/common.js";
import { assertRunningTotalsOf } from "../wallets/ceiling.js";
import { coerceTransactionRow, findTransactionRow, loadPair, lockTransactionLegs, transactionsFromRows, type TransactionPair } from "./store.js";

/** What was deleted, and the refunds of it as they are after the call (kept) or were (deleted). */
export interface DeletedTransaction extends TransactionPair {
  refunds: Transaction[];
}

/** How many refunds a refusal lists one by one; more are counted. */
const LISTED = 10;

export async function deleteTransactionOf(ctx: DomainContext, params: DeleteTransactionParams): Promise<DeletedTransaction> {
  const { db } = ctx;
  const userId = ctx.caller.userId;
  await lockTransactionLegs(db, userId, params.transaction_id);
  const row = await findTransactionRow(db, userId, params.transaction_id);
  if (!row) throw notFound("transaction", "transaction_id", params.transaction_id);
  const pair = await loadPair(db, row);
  const legs = [pair.transaction, ...(pair.counterpart ? [pair.counterpart] : [])];
  const ids = legs.map((t) => t.id);

  // Only an expense can be refunded (checkRefundOf), so only a plain or split expense has any.
  const refundRows = (await db("transactions").where({ user_id: userId }).whereIn("refund_of", ids).orderBy(["date", "id"])).map(coerceTransactionRow);
  if (refundRows.length > 0 && params.refunds === undefined) {
    const listed = refundRows
      .slice(0, LISTED)
      .map((r) => `${r.id} (${r.date}, ${formatMinor(r.amount_minor, r.currency)} ${r.currency}${r.payee ? ` from ${JSON.stringify(r.payee)}` : ""})`)
      .join(", ");
    const more = refundRows.length > LISTED ? ` and ${refundRows.length - LISTED} more` : "";
    throw invalidParams(
      "refunds",
      '"keep" or "delete"',
      `refunds: this transaction has ${refundRows.length === 1 ? "a refund" : `${refundRows.length} refunds`}: ${listed}${more}. Ask the person whether to keep ${refundRows.length === 1 ? "it" : "them"} as plain income (refunds: "keep") or delete ${refundRows.length === 1 ? "it" : "them"} too (refunds: "delete"), then call again.`,
    );
  }
  // The confirmation binds what the dry run showed: the transaction, its other leg and its refunds.
  bindShownRecord(ctx, "transaction", pair.transaction.id, { ...pair, refunds: refundRows }, pair.transaction.updated_at);
  const refundIds = refundRows.map((r) => r.id);
  let refunds: Transaction[] = [];
  if (refundIds.length > 0 && params.refunds === "delete") {
    refunds = await transactionsFromRows(db, refundRows);
    ids.push(...refundIds);
  } else if (refundIds.length > 0) {
    // Plain income: no longer linked, no longer taken off spending (its parts neither).
    await db("transactions").where({ user_id: userId }).whereIn("id", refundIds).update({ refund_of: null, refund: 0, updated_at: ctx.now().toISOString() });
    await db("transaction_parts").where({ user_id: userId }).whereIn("transaction_id", refundIds).update({ refund: 0 });
    refunds = await transactionsFromRows(
      db,
      (await db("transactions").where({ user_id: userId }).whereIn("id", refundIds).orderBy(["date", "id"])).map(coerceTransactionRow),
    );
  }
  // Every row in one statement each; tags and parts first (ON DELETE CASCADE would do it, but the audit
  // captures them before the row, so an undo puts the row back before them).
  await db("transaction_tags").whereIn("transaction_id", ids).delete();
  await db("transaction_parts").whereIn("transaction_id", ids).delete();
  await db("transactions").where({ user_id: userId }).whereIn("id", ids).delete();
  // Taking an income out can leave a balance beyond the bound the income offset: refused (conflict).
  await assertRunningTotalsOf(db, userId, [...new Set([...legs.map((t) => t.wallet_id), ...refunds.map((t) => t.wallet_id)])], "transaction_id");
  return { ...pair, refunds };
}
