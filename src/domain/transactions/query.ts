/**
 * The one owner-scoped query over a user's transactions. Every reader that filters the ledger
 * (list_transactions, get_transaction_summary, list_categories and list_tags, bulk edits) states what it
 * wants as a TransactionFilter and gets the rows from transactionsQuery or whereTransactions; a filter
 * means the same everywhere, and no reader can forget the user_id condition. The readers with their own
 * SQL (a row by id, a balance, a budget's spending, a rule's condition…) are listed, with why, in
 * docs/architecture.md, "Where code goes".
 *
 * Aggregates (the summary, categories and tags, budgets) count lines, not rows: a split transaction's
 * parts each in its own category and tags, any other transaction as itself (linesQuery, LINE).
 *
 * The filter is already checked and folded (foldKey, normalizeTags, boundInMinorUnits): building it
 * from a tool's params is the caller's job, and checkDateRange is the one check of a date range.
 */
import type { Knex } from "knex";
import { invalidParams } from "../../errors.js";
import { jsonArrayHasAnySql } from "../../db/dialect.js";

/** A checked filter over one user's transactions; an absent field does not filter. */
export interface TransactionFilter {
  userId: string;
  dateFrom?: string;
  dateTo?: string;
  walletId?: string;
  currency?: string;
  /** Folded (foldKey) category; a split transaction matches through any of its parts. */
  categoryKey?: string;
  /**
   * The split transactions with a part in categoryKey, when the caller has looked them up
   * (splitIdsInCategory): the condition is then the plain index range on category_key plus these ids,
   * and none at all leaves exactly the plan of an unsplit ledger. Absent: a subquery finds them.
   */
  categorySplitIds?: readonly string[];
  /** One direction, or any of several (the summary reads income and expenses, never transfers). */
  direction?: string | readonly string[];
  /** Folded tags: a transaction with any of them. */
  tagsAny?: readonly string[];
  /** Folded tags: a transaction with all of them. */
  tagsAll?: readonly string[];
  /** Magnitude bounds per group of currencies with one exponent (null currencies: every currency). */
  magnitude?: readonly { currencies: string[] | null; min?: bigint; max?: bigint }[];
  /** Folded (foldKey) payees: exactly this payee, or any of these, in any case (update_transactions' payee). */
  payeeKey?: string | readonly string[];
  /** Only these transactions (update_transactions' transaction_ids). */
  ids?: readonly string[];
  /** A LIKE pattern (containsPattern) over payee, description and notes. */
  queryPattern?: string;
  /** Only transactions that carry a category. */
  categorized?: boolean;
}

/** Refuses date_to before date_from: the one check of a date range, for every reader. */
export function checkDateRange(dateFrom: string | undefined, dateTo: string | undefined): void {
  if (dateFrom !== undefined && dateTo !== undefined && dateFrom > dateTo) {
    throw invalidParams("date_to", `a day on or after date_from (${dateFrom})`, `date_to: ${dateTo} is before date_from ${dateFrom}.`);
  }
}

/** BigInt bindings: both drivers take them (pg as text, better-sqlite3 as INTEGER); knex's types lack them. */
export const bigintValue = (v: bigint): Knex.Value => v as unknown as Knex.Value;

/** The user's transactions under `alias` (default "t"), filtered. */
export function transactionsQuery(db: Knex, f: TransactionFilter, alias = "t"): Knex.QueryBuilder {
  return whereTransactions(db, db({ [alias]: "transactions" }), f, alias);
}

/**
 * Adds the filter's conditions to `q`, a query whose transactions are `alias` (null: the plain table
 * `transactions`, as list_transactions reads it through a chosen index). Answers `q`.
 */
export function whereTransactions(db: Knex, q: Knex.QueryBuilder, f: TransactionFilter, alias: string | null = "t"): Knex.QueryBuilder {
  const c = (column: string) => (alias === null ? column : `${alias}.${column}`);
  q.where(c("user_id"), f.userId);
  if (f.walletId !== undefined) q.andWhere(c("wallet_id"), f.walletId);
  if (f.currency !== undefined) q.andWhere(c("currency"), f.currency);
  if (f.categoryKey !== undefined) {
    // A split row matches through its parts (its own category is null).
    const key = f.categoryKey;
    const ids = f.categorySplitIds;
    if (ids !== undefined && ids.length === 0) q.andWhere(c("category_key"), key);
    else
      q.andWhere((w) =>
        w
          .where(c("category_key"), key)
          .orWhereIn(c("id"), ids !== undefined ? [...ids] : db("transaction_parts").select("transaction_id").where({ user_id: f.userId, category_key: key })),
      );
  }
  if (f.categorized) q.whereNotNull(c("category_key"));
  if (typeof f.payeeKey === "string") q.andWhere(c("payee_key"), f.payeeKey);
  else if (f.payeeKey !== undefined) q.whereIn(c("payee_key"), [...f.payeeKey]);
  if (f.ids !== undefined) q.whereIn(c("id"), [...f.ids]);
  if (f.dateFrom !== undefined) q.andWhere(c("date"), ">=", f.dateFrom);
  if (f.dateTo !== undefined) q.andWhere(c("date"), "<=", f.dateTo);
  if (typeof f.direction === "string") q.andWhere(c("direction"), f.direction);
  else if (f.direction !== undefined) q.whereIn(c("direction"), [...f.direction]);
  if (f.tagsAny && f.tagsAny.length > 0) {
    q.whereIn(
      c("id"),
      db("transaction_tags")
        .select("transaction_id")
        .where("user_id", f.userId)
        .whereIn("tag", [...f.tagsAny]),
    );
  }
  for (const tag of f.tagsAll ?? []) {
    q.whereIn(c("id"), db("transaction_tags").select("transaction_id").where({ user_id: f.userId, tag }));
  }
  if (f.magnitude) {
    const groups = f.magnitude;
    const abs = `abs(${c("amount_minor")})`;
    // The loosest bounds over all exponents first, as plain conjuncts: a range on (user_id, abs(amount_minor), id).
    const mins = groups.flatMap((g) => (g.min === undefined ? [] : [g.min]));
    const maxes = groups.flatMap((g) => (g.max === undefined ? [] : [g.max]));
    if (mins.length > 0) q.andWhereRaw(`${abs} >= ?`, [bigintValue(mins.reduce((a, b) => (b < a ? b : a)))]);
    if (maxes.length > 0) q.andWhereRaw(`${abs} <= ?`, [bigintValue(maxes.reduce((a, b) => (b > a ? b : a)))]);
    if (groups.length > 1)
      q.where((outer) => {
        for (const g of groups) {
          outer.orWhere((inner) => {
            if (g.currencies) inner.whereIn(c("currency"), g.currencies);
            if (g.min !== undefined) inner.andWhereRaw(`${abs} >= ?`, [bigintValue(g.min)]);
            if (g.max !== undefined) inner.andWhereRaw(`${abs} <= ?`, [bigintValue(g.max)]);
          });
        }
      });
  }
  if (f.queryPattern !== undefined) {
    const p = f.queryPattern;
    q.andWhereRaw(`(lower(${c("payee")}) LIKE ? ESCAPE '\\' OR lower(${c("description")}) LIKE ? ESCAPE '\\' OR lower(${c("notes")}) LIKE ? ESCAPE '\\')`, [
      p,
      p,
      p,
    ]);
  }
  return q;
}

/**
 * A transaction's lines, for the readers that add money up by category or tag: a split transaction's
 * parts (p), each with its own amount, category, tags and refund flag, or the transaction itself (t)
 * when it is not split. The SQL of a line's columns, over `t` and `p` as linesQuery joins them.
 */
export const LINE = {
  amount: "COALESCE(p.amount_minor, t.amount_minor)",
  categoryKey: "CASE WHEN p.transaction_id IS NULL THEN t.category_key ELSE p.category_key END",
  category: "CASE WHEN p.transaction_id IS NULL THEN t.category ELSE p.category END",
  refund: "COALESCE(p.refund, t.refund)",
} as const;

/**
 * The lines of the user's transactions (t LEFT JOIN its parts p), filtered: the filter's category and
 * tags apply to each line (a part in "Gifts" is in "Gifts", its sibling in "Groceries" is not), every
 * other condition to the transaction. `categorized`: only lines that carry a category.
 */
export function linesQuery(db: Knex, f: TransactionFilter): Knex.QueryBuilder {
  const { categoryKey, categorized, tagsAny, tagsAll, ...rest } = f;
  const q = transactionsQuery(db, rest).leftJoin({ p: "transaction_parts" }, "p.transaction_id", "t.id");
  if (categoryKey !== undefined) q.andWhereRaw(`${LINE.categoryKey} = ?`, [categoryKey]);
  if (categorized) q.andWhereRaw(`${LINE.categoryKey} IS NOT NULL`);
  const lineHasAny = (tags: readonly string[]) =>
    q.andWhere((w) =>
      w
        .where((own) =>
          own.whereNull("p.transaction_id").whereIn(
            "t.id",
            db("transaction_tags")
              .select("transaction_id")
              .where("user_id", f.userId)
              .whereIn("tag", [...tags]),
          ),
        )
        .orWhere((part) => part.whereNotNull("p.transaction_id").andWhereRaw(jsonArrayHasAnySql(db, "p.tags", tags.length), [...tags])),
    );
  if (tagsAny && tagsAny.length > 0) lineHasAny(tagsAny);
  for (const tag of tagsAll ?? []) lineHasAny([tag]);
  return q;
}

/** The split transactions with a part in a category (few: one index range of transaction_parts). */
export async function splitIdsInCategory(db: Knex, userId: string, categoryKey: string): Promise<string[]> {
  const rows = await db("transaction_parts").distinct("transaction_id").where({ user_id: userId, category_key: categoryKey });
  return rows.map((r: { transaction_id: unknown }) => String(r.transaction_id));
}
