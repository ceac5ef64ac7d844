/**
 * update_transaction: only the fields given change. Rules:
 * - wallet_id moves the transaction to another of the user's wallets in the same currency (another
 *   currency is refused); a transfer leg cannot move onto its counterpart's wallet.
 * - direction switches between expense and income (the sign follows); a transfer leg has no direction to
 *   switch (delete the transfer and record something else).
 * - date, amount and description of a transfer leg change both legs (each keeps its sign); payee,
 *   category, tags and notes belong to the leg given.
 * - null clears payee, description, category or notes; tags replaces the whole set.
 * - refund_of marks an income as the refund of an expense (the checks of create, parts.ts checkRefundOf),
 *   null makes it plain income again (still a refund if filed in a spending category, markRefunds); a
 *   refund cannot become an expense, nor a refunded expense an income, while the link stands.
 */
import type { DomainContext } from "../../context.js";
import type { Knex } from "knex";
import type { Direction, UpdateTransactionParams, Warning } from "../../../generated/types.js";
import { invalidParams, notFound } from "../../errors.js";
import { getWalletRow } from "../wallets/store.js";
import { checkNamedCurrency } from "../wallets/currency.js";
import { parseAmountParam } from "../shared/amounts.js";
import { assertRunningTotalsOf } from "../wallets/ceiling.js";
import {
  assertExternalIdFree,
  findCounterpartRow,
  findTransactionRow,
  loadPair,
  type TransactionRow,
  lockTransactionLegs,
  possibleDuplicates,
  type TransactionPair,
} from "./store.js";
import { cleanText, foldedKeys, normalizeTags } from "../shared/text.js";
import { checkRefundOf, markRefunds, negateParts, planParts, storedParts, tagsOfParts, writeParts, type PlannedPart } from "./parts.js";

const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * The refund link after this update, checked: refund_of given (an expense in this currency, checkRefundOf)
 * or kept; a direction switch may not break a link (a refund turned expense, a refunded expense turned
 * income), so that every refund_of names an expense and no chain or cycle forms. Answers the refunded
 * expense's category when refund_of is set now (null otherwise).
 */
async function planRefundOf(db: Knex, userId: string, row: TransactionRow, direction: string, refundOf: string | null | undefined): Promise<string | null> {
  if (direction !== row.direction && refundOf === undefined && row.refund_of !== null) {
    throw invalidParams(
      "direction",
      "income while refund_of is set",
      `direction: this income is the refund of ${row.refund_of}; give refund_of: null too to make it an expense.`,
    );
  }
  if (direction !== row.direction && row.direction === "expense") {
    const refunds = (await db("transactions").where({ user_id: userId, refund_of: row.id }).orderBy("id").pluck("id")) as string[];
    if (refunds.length > 0) {
      throw invalidParams(
        "direction",
        "expense while refunds name it",
        `direction: ${refunds.join(", ")} ${refunds.length === 1 ? "is a refund" : "are refunds"} of this expense; clear their refund_of first (update_transaction with refund_of: null) to make it an income.`,
      );
    }
  }
  if (typeof refundOf !== "string") return null;
  return checkRefundOf(db, userId, refundOf, { direction: direction as Direction, currency: row.currency, id: row.id });
}

export interface UpdatedTransaction {
  before: TransactionPair;
  after: TransactionPair;
  warnings: Warning[];
}

export async function updateTransaction(ctx: DomainContext, params: UpdateTransactionParams): Promise<UpdatedTransaction> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const now = ctx.now();
  // Locked before the first read, dry runs included: a delete of this transaction (or of its transfer's
  // other leg) at the same moment then finishes first, and this update answers not_found.
  await lockTransactionLegs(db, userId, params.transaction_id);
  const row = await findTransactionRow(db, userId, params.transaction_id);
  if (!row) throw notFound("transaction", "transaction_id", params.transaction_id);
  const before = await loadPair(db, row);
  const other = await findCounterpartRow(db, row);
  const isTransfer = row.direction === "transfer";
  const warnings: Warning[] = [];

  if (isTransfer && params.direction !== undefined) {
    throw invalidParams(
      "direction",
      "no direction for a transfer leg",
      "direction: this transaction is a leg of a transfer; a transfer cannot be turned into an expense or income. Delete the transfer (both legs) and record what happened instead.",
    );
  }

  // A split row's amount, category and tags are its parts': they change through parts (docs/ledger.md).
  const split = (await storedParts(db, userId, row.id)).length > 0;
  if (split && params.parts === undefined) {
    for (const field of ["amount", "category", "tags"] as const) {
      if (params[field] === undefined) continue;
      throw invalidParams(
        field,
        "parts (this transaction is split)",
        `${field}: this transaction is split, so its ${field === "amount" ? "amount is the sum of its parts" : `${field === "category" ? "category" : "tags"} belong to its parts`}; give parts${field === "amount" ? " with the new amount" : ""}, or parts: [] to un-split it first.`,
      );
    }
  }

  const at = now.toISOString();
  const patch: Record<string, unknown> = { updated_at: at };
  const otherPatch: Record<string, unknown> = {};

  let walletId = row.wallet_id;
  if (params.wallet_id !== undefined && params.wallet_id !== row.wallet_id) {
    const target = await getWalletRow(db, userId, params.wallet_id, "wallet_id");
    if (target.currency !== row.currency) {
      throw invalidParams(
        "wallet_id",
        `a wallet in ${row.currency}`,
        `wallet_id: the transaction is in ${row.currency} but the wallet ${JSON.stringify(target.name)} holds ${target.currency}; a transaction can only move to a wallet of the same currency.`,
      );
    }
    if (other && target.id === other.wallet_id) {
      throw invalidParams(
        "wallet_id",
        "a wallet other than the transfer's other wallet",
        "wallet_id: that wallet is the other side of this transfer; a transfer needs two different wallets.",
      );
    }
    if (row.external_id !== null) await assertExternalIdFree(db, userId, target.id, row.external_id, row.id);
    if (target.archived)
      warnings.push({ code: "wallet_archived", message: `The wallet ${JSON.stringify(target.name)} is archived; the transaction was moved anyway.` });
    walletId = target.id;
    patch.wallet_id = target.id;
    if (other) otherPatch.counterpart_wallet_id = target.id;
  }

  await checkNamedCurrency(db, userId, params.currency, row.currency, `the transaction (its wallet)`);
  const magnitude =
    params.amount !== undefined ? parseAmountParam(params.amount, row.currency, "amount") : row.amount_minor < 0n ? -row.amount_minor : row.amount_minor;
  const direction = isTransfer ? row.direction : (params.direction ?? row.direction);
  if (params.amount !== undefined || params.direction !== undefined) {
    const outgoing = isTransfer ? row.amount_minor < 0n : direction === "expense";
    patch.amount_minor = outgoing ? -magnitude : magnitude;
    patch.direction = direction;
    if (other && params.amount !== undefined) otherPatch.amount_minor = outgoing ? magnitude : -magnitude;
  }
  // The split after this call: the parts given (checked against the new amount and direction), none to
  // un-split, or the stored ones (their sign follows a switched direction).
  let newParts: PlannedPart[] | undefined;
  if (params.parts !== undefined) {
    const signed = direction === "income" ? magnitude : -magnitude;
    newParts = planParts(
      params.parts,
      { amountMinor: signed, currency: row.currency, direction: row.direction === "transfer" ? "transfer" : direction },
      { category: params.category === undefined ? null : cleanText(params.category), tags: params.tags ?? [] },
    );
  }
  const refundedCategory = await planRefundOf(db, userId, row, direction, params.refund_of);
  if (params.refund_of !== undefined) patch.refund_of = params.refund_of;
  if (params.date !== undefined) {
    patch.date = params.date;
    if (other) otherPatch.date = params.date;
  }
  if (params.description !== undefined) {
    patch.description = params.description;
    if (other) otherPatch.description = params.description;
  }
  let payee = row.payee;
  if (params.payee !== undefined) {
    payee = cleanText(params.payee);
    Object.assign(patch, { payee, ...foldedKeys({ payee }) });
  }
  let categoryValue: string | null | undefined = params.category === undefined ? undefined : cleanText(params.category);
  // A refund's money goes back where it was spent: an uncategorised row takes the refunded expense's category, as on create.
  if (categoryValue === undefined && refundedCategory !== null && row.category === null && !split && params.parts === undefined)
    categoryValue = refundedCategory;
  if (newParts !== undefined && newParts.length > 0) categoryValue = null; // a split row's categories are its parts'
  if (newParts !== undefined && newParts.length === 0 && split && categoryValue === undefined) {
    // Un-split without a category: the row keeps the category of its largest part (the first of equals).
    const largest = (await storedParts(db, userId, row.id)).reduce((a, b) => (abs(b.amountMinor) > abs(a.amountMinor) ? b : a));
    categoryValue = largest.category;
  }
  if (categoryValue !== undefined) {
    Object.assign(patch, { category: categoryValue, ...foldedKeys({ category: categoryValue }) });
  }
  if (params.notes !== undefined) patch.notes = params.notes;

  await db("transactions").where({ user_id: userId, id: row.id }).update(patch);
  if (other && Object.keys(otherPatch).length > 0) {
    await db("transactions")
      .where({ user_id: userId, id: other.id })
      .update({ ...otherPatch, updated_at: at });
  }
  if (patch.wallet_id !== undefined || patch.amount_minor !== undefined || patch.date !== undefined) {
    const field = params.amount !== undefined ? "amount" : params.wallet_id !== undefined ? "wallet_id" : params.date !== undefined ? "date" : "direction";
    await assertRunningTotalsOf(db, userId, [row.wallet_id, walletId, ...(other ? [other.wallet_id] : [])], field);
  }
  if (newParts !== undefined) await writeParts(db, userId, row.id, newParts);
  else if (split && patch.direction !== undefined && patch.direction !== row.direction) await negateParts(db, userId, row.id);
  const newTags = newParts !== undefined && newParts.length > 0 ? tagsOfParts(newParts) : params.tags;
  if (newTags !== undefined) {
    const tags = normalizeTags(newTags);
    await db("transaction_tags").where({ transaction_id: row.id }).delete();
    if (tags.length > 0) await db("transaction_tags").insert(tags.map((tag) => ({ transaction_id: row.id, user_id: userId, tag })));
  }

  const moved = ["wallet_id", "date", "amount", "direction", "payee"].some((f) => params[f as keyof UpdateTransactionParams] !== undefined);
  if (moved && !isTransfer) {
    const duplicates = await possibleDuplicates(
      db,
      userId,
      {
        walletId,
        date: params.date ?? row.date,
        amountMinor: patch.amount_minor !== undefined ? (patch.amount_minor as bigint) : row.amount_minor,
        direction,
        payee,
        externalId: row.external_id,
      },
      [row.id],
    );
    if (duplicates.length > 0) {
      warnings.push({
        code: "possible_duplicate",
        message: `After this change the wallet has ${duplicates.length === 1 ? "another transaction" : `${duplicates.length} other transactions`} with the same amount and payee within a few days (${duplicates.map((d) => `${d.id} on ${d.date}`).join(", ")}). If it is the same payment, delete one with delete_transaction.`,
      });
    }
  }

  if (!isTransfer) await markRefunds(db, userId, [row.id]);
  const updated = (await findTransactionRow(db, userId, row.id))!;
  return { before, after: await loadPair(db, updated), warnings };
}
