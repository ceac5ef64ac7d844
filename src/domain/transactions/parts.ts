/**
 * Split transactions and refunds (docs/ledger.md, "Split transactions" and "Refunds").
 *
 * A split transaction keeps its total in transactions.amount_minor (the wallet, its balance and a bank
 * statement see one row) and its parts in transaction_parts, each with a signed amount (the total's sign),
 * a category, tags and notes; the parts sum exactly to the total. The row's own category is null and its
 * tags (transaction_tags) are the union of its parts' tags, so a tag filter matches it through its parts
 * and a category filter looks into transaction_parts (query.ts).
 *
 * A refund is an income, or a part of one, that gives money back to spending: it names the expense it
 * refunds (refund_of) or is filed in a category the person spends in. markRefunds decides it in SQL when
 * a row is written and stores it (transactions.refund, transaction_parts.refund); every reader takes
 * refunds off spending from that column.
 */
import type { Knex } from "knex";
import type { Direction, Part, TransactionPart } from "../../../generated/types.js";
import { byPrimaryKeySql } from "../../db/dialect.js";
import { invalidParams, notFound } from "../../errors.js";
import { formatMinor, parseAmount, MoneyError, toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { cleanText, foldedKeys, normalizeTags, nullableText } from "../shared/text.js";

/** A part as checked, before it is stored: amount signed like the total. */
export interface PlannedPart {
  amountMinor: bigint;
  category: string | null;
  tags: string[];
  notes: string | null;
}

/** What a part inherits when it does not say: the call's category, and tags every part gets. */
export interface PartDefaults {
  category?: string | null;
  tags?: readonly string[];
}

/**
 * The parts of a call, checked against the transaction's signed total: each amount a positive magnitude
 * in the currency (a sign is refused, since parts take the total's), none zero, together exactly the total.
 * `[]` plans no parts (un-splitting). Every problem is an invalid_params naming the part.
 */
export function planParts(
  parts: readonly TransactionPart[],
  total: { amountMinor: bigint; currency: string; direction: Direction },
  defaults: PartDefaults = {},
): PlannedPart[] {
  if (parts.length === 0) return [];
  if (total.direction === "transfer") {
    throw invalidParams(
      "parts",
      "no parts on a transfer",
      "parts: a transfer moves money between the user's own wallets and cannot be split; split the expense or income instead.",
    );
  }
  if (parts.length === 1) {
    throw invalidParams(
      "parts",
      "two or more parts, or [] for none",
      "parts: a split needs two or more parts; to file the whole amount in one category, give category without parts (update_transaction: parts [] un-splits).",
    );
  }
  const negative = total.amountMinor < 0n;
  const magnitude = negative ? -total.amountMinor : total.amountMinor;
  let sum = 0n;
  const planned = parts.map((p, i) => {
    const field = `parts[${i}].amount`;
    let minor: bigint;
    try {
      minor = parseAmount(p.amount, total.currency, field, { signed: true, allowZero: true });
    } catch (err) {
      if (err instanceof MoneyError) throw invalidParams(err.field, err.expected, err.message);
      throw err;
    }
    if (minor === 0n) throw invalidParams(field, "a part greater than zero", `${field}: a part of zero is no part; leave it out.`);
    if (minor < 0n) {
      throw invalidParams(
        field,
        "a positive amount (parts take the transaction's sign)",
        `${field}: every part has the transaction's sign; give it as a positive amount like amount (a part that goes the other way is a separate transaction).`,
      );
    }
    sum += minor;
    const category = p.category !== undefined ? cleanText(p.category) : (defaults.category ?? null);
    const tags = normalizeTags([...(defaults.tags ?? []), ...(p.tags ?? [])], `parts[${i}].tags`);
    return { amountMinor: negative ? -minor : minor, category, tags, notes: p.notes !== undefined ? cleanText(p.notes) : null };
  });
  if (sum !== magnitude) {
    const diff = sum - magnitude;
    throw invalidParams(
      "parts",
      `parts that add up to the amount, ${formatMinor(magnitude, total.currency)}`,
      `parts: they add up to ${formatMinor(sum, total.currency)} but the amount is ${formatMinor(magnitude, total.currency)} ${total.currency} (${diff > 0n ? "over" : "short"} by ${formatMinor(diff > 0n ? diff : -diff, total.currency)}); make them sum exactly.`,
    );
  }
  return planned;
}

/** The union of the parts' tags: the split row's own tags. */
export function tagsOfParts(parts: readonly PlannedPart[]): string[] {
  return normalizeTags(parts.flatMap((p) => p.tags));
}

/** Replaces a transaction's parts (none: it is no longer split). */
export async function writeParts(db: Knex, userId: string, transactionId: string, parts: readonly PlannedPart[]): Promise<void> {
  await db("transaction_parts").where({ user_id: userId, transaction_id: transactionId }).delete();
  if (parts.length === 0) return;
  await db("transaction_parts").insert(
    parts.map((p, position) => ({
      transaction_id: transactionId,
      position,
      user_id: userId,
      amount_minor: p.amountMinor,
      category: p.category,
      ...foldedKeys({ category: p.category }),
      tags: JSON.stringify(p.tags),
      notes: p.notes,
      refund: 0,
    })),
  );
}

/** The stored parts of a transaction, in order, as planned parts (un-splitting and sign flips read them). */
export async function storedParts(db: Knex, userId: string, transactionId: string): Promise<PlannedPart[]> {
  const rows = await db("transaction_parts").where({ user_id: userId, transaction_id: transactionId }).orderBy("position");
  return rows.map((r: Record<string, unknown>) => ({
    amountMinor: toMinorBigInt(r.amount_minor as MinorLike),
    category: nullableText(r.category),
    tags: JSON.parse(String(r.tags)) as string[],
    notes: nullableText(r.notes),
  }));
}

/** A stored part as a bulk edit changes it in place: its position, category and tags. */
export interface StoredPart {
  position: number;
  category: string | null;
  categoryKey: string | null;
  tags: string[];
}

/** The parts of those of the transactions that are split, by transaction id, in order (one statement per 500 ids). */
export async function splitPartsOf(db: Knex, userId: string, transactionIds: readonly string[]): Promise<Map<string, StoredPart[]>> {
  const out = new Map<string, StoredPart[]>();
  for (let i = 0; i < transactionIds.length; i += 500) {
    const rows = (await db("transaction_parts")
      .where("user_id", userId)
      .whereIn("transaction_id", transactionIds.slice(i, i + 500))
      .orderBy(["transaction_id", "position"])
      .select("transaction_id", "position", "category", "category_key", "tags")) as Record<string, unknown>[];
    for (const r of rows) {
      const list = out.get(String(r.transaction_id)) ?? [];
      list.push({
        position: Number(r.position),
        category: nullableText(r.category),
        categoryKey: nullableText(r.category_key),
        tags: JSON.parse(String(r.tags)) as string[],
      });
      out.set(String(r.transaction_id), list);
    }
  }
  return out;
}

/** Flips the sign of a split transaction's parts (its direction switched between expense and income). */
export async function negateParts(db: Knex, userId: string, transactionId: string): Promise<void> {
  await db("transaction_parts")
    .where({ user_id: userId, transaction_id: transactionId })
    .update({ amount_minor: db.raw("-amount_minor") });
}

/** The parts of many transactions at once (as the contract shows them), by transaction id; unsplit ones absent. */
export async function partsOf(db: Knex, transactions: readonly { id: string; currency: string }[]): Promise<Map<string, Part[]>> {
  const out = new Map<string, Part[]>();
  const currencyOf = new Map(transactions.map((t) => [t.id, t.currency]));
  const ids = [...currencyOf.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = (await db("transaction_parts")
      .whereIn("transaction_id", ids.slice(i, i + 500))
      .orderBy([{ column: "transaction_id" }, { column: "position" }])) as Record<string, unknown>[];
    for (const r of rows) {
      const id = String(r.transaction_id);
      out.set(id, [...(out.get(id) ?? []), partFromRow(r, currencyOf.get(id)!)]);
    }
  }
  return out;
}

/** The columns of a stored part that partFromRow reads, as SQL over the alias `x` (jsonRowsSql's fields). */
export const PART_FIELDS = {
  amount_minor: "CAST(x.amount_minor AS TEXT)",
  category: "x.category",
  tags: "x.tags",
  notes: "x.notes",
  refund: "x.refund",
} as const;

/** A stored part (a transaction_parts row, or an object of PART_FIELDS) as the contract shows it. */
export function partFromRow(r: Record<string, unknown>, currency: string): Part {
  const part: Part = {
    amount: toMoney(toMinorBigInt(r.amount_minor as MinorLike), currency),
    category: nullableText(r.category),
    tags: JSON.parse(String(r.tags)) as string[],
    notes: nullableText(r.notes),
  };
  if (Number(r.refund) === 1) part.refund = true;
  return part;
}

/**
 * The SQL of "this category is one the user spends in": an expense, or a part of one, filed under it.
 * `key` is the SQL of the folded category to test; one binding, the user id, twice.
 */
function spendingCategorySql(key: string): string {
  return `(${key} IS NOT NULL AND (EXISTS (SELECT 1 FROM transactions e WHERE e.user_id = ? AND e.category_key = ${key} AND e.direction = 'expense')
    OR EXISTS (SELECT 1 FROM transaction_parts ep WHERE ep.user_id = ? AND ep.category_key = ${key} AND ep.amount_minor < 0)))`;
}

/**
 * Decides and stores whether these transactions (and their parts) are refunds: an income, or a part of
 * one (a split row's refunds are its parts, never the row itself), that names the expense it refunds (refund_of) or is filed in a category the user spends in. Run
 * after every write of a transaction's direction, category, parts or refund_of; an expense filed later in
 * a new category does not turn earlier incomes into refunds (docs/ledger.md, "Refunds").
 */
export async function markRefunds(db: Knex, userId: string, transactionIds: readonly string[]): Promise<void> {
  // Only rows whose flag changes are written: a row rewritten to its own value would still be captured
  // for undo (docs/decisions.md#bulk-writes-by-primary-key), and the rows are found by their key.
  const isRefund = `CASE WHEN direction = 'income' AND (refund_of IS NOT NULL OR ${spendingCategorySql("transactions.category_key")})
          AND NOT EXISTS (SELECT 1 FROM transaction_parts sp WHERE sp.transaction_id = transactions.id) THEN 1 ELSE 0 END`;
  const partIsRefund = `CASE WHEN amount_minor > 0 AND (EXISTS (SELECT 1 FROM transactions r WHERE r.id = transaction_parts.transaction_id AND r.refund_of IS NOT NULL) OR ${spendingCategorySql("transaction_parts.category_key")}) THEN 1 ELSE 0 END`;
  for (let i = 0; i < transactionIds.length; i += 300) {
    const ids = transactionIds.slice(i, i + 300);
    const slots = ids.map(() => "?").join(", ");
    await db.raw(`UPDATE ${byPrimaryKeySql(db, "transactions")} SET refund = ${isRefund} WHERE user_id = ? AND id IN (${slots}) AND refund <> ${isRefund}`, [
      userId,
      userId,
      userId,
      ...ids,
      userId,
      userId,
    ]);
    await db.raw(
      `UPDATE ${byPrimaryKeySql(db, "transaction_parts")} SET refund = ${partIsRefund} WHERE user_id = ? AND transaction_id IN (${slots}) AND refund <> ${partIsRefund}`,
      [userId, userId, userId, ...ids, userId, userId],
    );
  }
}

/**
 * refund_of: only an income refunds, and only one of the user's expenses (another user's id is
 * not_found, like a missing one) in the income's currency (a refund is taken off its expense's category
 * spending, which is counted per currency), never itself. Answers the refunded expense's category (the
 * refund's default: its money goes back where it was spent), null when it had none or is split.
 * No chain can form: a refund is an income and only an expense is refunded (update.ts keeps a refunded
 * expense from becoming an income, and a refund from becoming an expense).
 */
export async function checkRefundOf(
  db: Knex,
  userId: string,
  refundOf: string,
  refund: { direction: Direction; currency: string; id?: string },
): Promise<string | null> {
  if (refund.direction !== "income") {
    throw invalidParams("refund_of", "only on an income", "refund_of: a refund is money coming back; record it as direction income (or leave refund_of out).");
  }
  if (refundOf === refund.id) throw invalidParams("refund_of", "the id of another transaction, an expense", "refund_of: a transaction cannot refund itself.");
  const row = (await db("transactions").where({ user_id: userId, id: refundOf }).first("direction", "category", "currency")) as
    { direction: string; category: unknown; currency: string } | undefined;
  if (!row) throw notFound("transaction", "refund_of", refundOf);
  if (row.direction !== "expense") {
    throw invalidParams(
      "refund_of",
      "the id of an expense",
      `refund_of: ${refundOf} is ${row.direction === "income" ? "an income" : "a transfer leg"}; only an expense can be refunded.`,
    );
  }
  if (row.currency !== refund.currency) {
    throw invalidParams(
      "refund_of",
      `an expense in ${refund.currency}`,
      `refund_of: ${refundOf} was spent in ${row.currency} and this income is in ${refund.currency}; a refund comes back in the currency it was spent in. Record the money as plain income (no refund_of), or in a wallet of ${row.currency}.`,
    );
  }
  return nullableText(row.category);
}
