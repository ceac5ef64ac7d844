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
  type DuplicateProbe,
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

/** What this call writes, as planned: the row's columns and its transfer's other leg's (column → value). */
interface Patches {
  row: Record<string, unknown>;
  other: Record<string, unknown>;
}

/** The transaction as it stands, locked, with its transfer's other leg; refuses what no update can do to it. */
async function lockedForUpdate(db: Knex, userId: string, params: UpdateTransactionParams) {
  // Locked before the first read, dry runs included: a delete of this transaction (or of its transfer's
  // other leg) at the same moment then finishes first, and this update answers not_found.
  await lockTransactionLegs(db, userId, params.transaction_id);
  const row = await findTransactionRow(db, userId, params.transaction_id);
  if (!row) throw notFound("transaction", "transaction_id", params.transaction_id);
  const before = await loadPair(db, row);
  const other = await findCounterpartRow(db, row);
  if (row.direction === "transfer" && params.direction !== undefined) {
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
  return { row, before, other, split };
}

/**
 * wallet_id: the wallet the transaction ends in. A move goes to a wallet of the same currency other than
 * the transfer's other wallet, where its external id is free; the other leg then names it as counterpart.
 */
async function planWalletMove(
  db: Knex,
  userId: string,
  row: TransactionRow,
  other: TransactionRow | undefined,
  walletIdParam: string | undefined,
  patches: Patches,
  warnings: Warning[],
): Promise<string> {
  if (walletIdParam === undefined || walletIdParam === row.wallet_id) return row.wallet_id;
  const target = await getWalletRow(db, userId, walletIdParam, "wallet_id");
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
  patches.row.wallet_id = target.id;
  if (other) patches.other.counterpart_wallet_id = target.id;
  return target.id;
}

/**
 * amount and direction: the magnitude and direction after this call, and the signed amount when either
 * is given. A transfer leg keeps its sign (its other leg takes the opposite); an expense is negative.
 */
function planAmount(row: TransactionRow, other: TransactionRow | undefined, params: UpdateTransactionParams, patches: Patches) {
  const isTransfer = row.direction === "transfer";
  const magnitude = params.amount !== undefined ? parseAmountParam(params.amount, row.currency, "amount") : abs(row.amount_minor);
  const direction = isTransfer ? row.direction : (params.direction ?? row.direction);
  if (params.amount !== undefined || params.direction !== undefined) {
    const outgoing = isTransfer ? row.amount_minor < 0n : direction === "expense";
    patches.row.amount_minor = outgoing ? -magnitude : magnitude;
    patches.row.direction = direction;
    if (other && params.amount !== undefined) patches.other.amount_minor = outgoing ? magnitude : -magnitude;
  }
  return { magnitude, direction };
}

/**
 * The row's category after this call (undefined: unchanged). A refund's money goes back where it was
 * spent, so an uncategorised row newly marked a refund takes the refunded expense's category, as on
 * create; a split row's categories are its parts'; un-split without a category, the row keeps the
 * category of its largest part (the first of equals).
 */
async function planCategory(
  db: Knex,
  row: TransactionRow,
  params: UpdateTransactionParams,
  split: boolean,
  newParts: PlannedPart[] | undefined,
  refundedCategory: string | null,
): Promise<string | null | undefined> {
  let categoryValue: string | null | undefined = params.category === undefined ? undefined : cleanText(params.category);
  if (categoryValue === undefined && refundedCategory !== null && row.category === null && !split && params.parts === undefined)
    categoryValue = refundedCategory;
  if (newParts !== undefined && newParts.length > 0) categoryValue = null;
  if (newParts !== undefined && newParts.length === 0 && split && categoryValue === undefined) {
    const largest = (await storedParts(db, row.user_id, row.id)).reduce((a, b) => (abs(b.amountMinor) > abs(a.amountMinor) ? b : a));
    categoryValue = largest.category;
  }
  return categoryValue;
}

/**
 * The writes, once every check passed: both legs' columns; then the running totals of every wallet the
 * money left or reached (a ceiling refuses naming the field that moved it); the parts (a split's signs
 * follow a switched direction); the tags, a split row's being its parts'.
 */
async function writeUpdate(
  db: Knex,
  p: { row: TransactionRow; other: TransactionRow | undefined; split: boolean; walletId: string; newParts: PlannedPart[] | undefined },
  params: UpdateTransactionParams,
  patches: Patches,
): Promise<void> {
  const { row, other, split, newParts } = p;
  const userId = row.user_id;
  const patch = patches.row;
  await db("transactions").where({ user_id: userId, id: row.id }).update(patch);
  if (other && Object.keys(patches.other).length > 0) {
    await db("transactions")
      .where({ user_id: userId, id: other.id })
      .update({ ...patches.other, updated_at: patch.updated_at });
  }
  if (patch.wallet_id !== undefined || patch.amount_minor !== undefined || patch.date !== undefined) {
    const field = params.amount !== undefined ? "amount" : params.wallet_id !== undefined ? "wallet_id" : params.date !== undefined ? "date" : "direction";
    await assertRunningTotalsOf(db, userId, [row.wallet_id, p.walletId, ...(other ? [other.wallet_id] : [])], field);
  }
  if (newParts !== undefined) await writeParts(db, userId, row.id, newParts);
  else if (split && patch.direction !== undefined && patch.direction !== row.direction) await negateParts(db, userId, row.id);
  const newTags = newParts !== undefined && newParts.length > 0 ? tagsOfParts(newParts) : params.tags;
  if (newTags !== undefined) {
    const tags = normalizeTags(newTags);
    await db("transaction_tags").where({ transaction_id: row.id }).delete();
    if (tags.length > 0) await db("transaction_tags").insert(tags.map((tag) => ({ transaction_id: row.id, user_id: userId, tag })));
  }
}

/** A warning when the row, as it now stands, looks like another of its wallet's (possibleDuplicates), or null. */
async function duplicateWarning(db: Knex, row: TransactionRow, probe: Omit<DuplicateProbe, "externalId">): Promise<Warning | null> {
  const duplicates = await possibleDuplicates(db, row.user_id, { ...probe, externalId: row.external_id }, [row.id]);
  if (duplicates.length === 0) return null;
  return {
    code: "possible_duplicate",
    message: `After this change the wallet has ${duplicates.length === 1 ? "another transaction" : `${duplicates.length} other transactions`} with the same amount and payee within a few days (${duplicates.map((d) => `${d.id} on ${d.date}`).join(", ")}). If it is the same payment, delete one with delete_transaction.`,
  };
}

export async function updateTransaction(ctx: DomainContext, params: UpdateTransactionParams): Promise<UpdatedTransaction> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const { row, before, other, split } = await lockedForUpdate(db, userId, params);
  const isTransfer = row.direction === "transfer";
  const warnings: Warning[] = [];
  const patches: Patches = { row: { updated_at: ctx.now().toISOString() }, other: {} };

  // Every check comes before the first write, in the order the fields are read.
  const walletId = await planWalletMove(db, userId, row, other, params.wallet_id, patches, warnings);
  await checkNamedCurrency(db, userId, params.currency, row.currency, `the transaction (its wallet)`);
  const { magnitude, direction } = planAmount(row, other, params, patches);
  // The split after this call: the parts given (checked against the new amount and direction), none to
  // un-split, or the stored ones (their sign follows a switched direction).
  let newParts: PlannedPart[] | undefined;
  if (params.parts !== undefined) {
    const signed = direction === "income" ? magnitude : -magnitude;
    newParts = planParts(
      params.parts,
      { amountMinor: signed, currency: row.currency, direction: isTransfer ? "transfer" : direction },
      { category: params.category === undefined ? null : cleanText(params.category), tags: params.tags ?? [] },
    );
  }
  const refundedCategory = await planRefundOf(db, userId, row, direction, params.refund_of);
  const patch = patches.row;
  if (params.refund_of !== undefined) patch.refund_of = params.refund_of;
  // date and description belong to the transfer as a whole: both legs take them.
  if (params.date !== undefined) {
    patch.date = params.date;
    if (other) patches.other.date = params.date;
  }
  if (params.description !== undefined) {
    patch.description = params.description;
    if (other) patches.other.description = params.description;
  }
  const payee = params.payee !== undefined ? cleanText(params.payee) : row.payee;
  if (params.payee !== undefined) Object.assign(patch, { payee, ...foldedKeys({ payee }) });
  const category = await planCategory(db, row, params, split, newParts, refundedCategory);
  if (category !== undefined) Object.assign(patch, { category, ...foldedKeys({ category }) });
  if (params.notes !== undefined) patch.notes = params.notes;

  await writeUpdate(db, { row, other, split, walletId, newParts }, params, patches);
  const moved = ["wallet_id", "date", "amount", "direction", "payee"].some((f) => params[f as keyof UpdateTransactionParams] !== undefined);
  if (moved && !isTransfer) {
    const amountMinor = patch.amount_minor !== undefined ? (patch.amount_minor as bigint) : row.amount_minor;
    const warning = await duplicateWarning(db, row, { walletId, date: params.date ?? row.date, amountMinor, direction, payee });
    if (warning) warnings.push(warning);
  }
  if (!isTransfer) await markRefunds(db, userId, [row.id]);
  const updated = (await findTransactionRow(db, userId, row.id))!;
  return { before, after: await loadPair(db, updated), warnings };
}
