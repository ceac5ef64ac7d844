/**
 * list_transactions: filters, sort and keyset pagination.
 *
 * A page is read with a keyset condition on the sort key and id (never OFFSET), so page 1000 costs what
 * page 1 costs: the database walks an index that starts with user_id and ends with id, from the cursor on,
 * and stops after limit + 1 rows. total_count is a COUNT(*) over the same filters (index-only where the
 * filters allow), run for the first page and carried in the cursor, so later pages cost O(limit) only.
 * docs/ledger.md shows the plans on both engines.
 *
 * The cursor is opaque base64url JSON {v, s (sort), k (sort key of the last row), i (its id), f (a
 * fingerprint of the filters), t (total_count of the first page)}; a cursor from other filters or another
 * sort is refused, so a page can never silently mix two queries.
 */
import type { Knex } from "knex";
import type { DomainContext } from "../../context.js";
import type { ListTransactionsParams, ListTransactionsResult, TransactionSelection } from "../../../generated/types.js";
import { decodeCursor, encodeCursor, pageSize, queryFingerprint, splitPage } from "../paging.js";
import { getWalletRow } from "../wallets/store.js";
import { notFound } from "../../errors.js";
import { boundInMinorUnits, exponentOf } from "../shared/amounts.js";
import { fromWithIndex, jsonRowsSql, jsonValue, tagsOfTransactionSql } from "../../db/dialect.js";
import { coerceTransactionRow, transactionFromRow } from "./store.js";
import { PART_FIELDS, partFromRow } from "./parts.js";
import { bigintValue, checkDateRange, splitIdsInCategory, whereTransactions, type TransactionFilter } from "./query.js";
import { containsPattern, foldKey, normalizeTags } from "../shared/text.js";

type Sort = "date_desc" | "date_asc" | "amount_desc" | "amount_asc";

/**
 * list_transactions' filters as the ledger's filter (src/domain/transactions/query.ts): its params, or
 * update_transactions' `filter` (the same filters, TransactionSelection in the spec).
 */
export async function resolveFilters(db: Knex, userId: string, p: TransactionSelection): Promise<TransactionFilter> {
  return (await resolveFilterOf(db, userId, p, false)).filter;
}

/**
 * resolveFilters; with `deferWallet`, a wallet_id whose currency no amount bound needs is not looked up
 * but answered as `uncheckedWalletId`, for the caller to check in its own statement (listTransactions).
 */
async function resolveFilterOf(
  db: Knex,
  userId: string,
  p: TransactionSelection,
  deferWallet: boolean,
): Promise<{ filter: TransactionFilter; uncheckedWalletId?: string }> {
  checkDateRange(p.date_from, p.date_to);
  const f: TransactionFilter = { userId };
  if (p.date_from !== undefined) f.dateFrom = p.date_from;
  if (p.date_to !== undefined) f.dateTo = p.date_to;
  let walletCurrency: string | undefined;
  let uncheckedWalletId: string | undefined;
  if (p.wallet_id !== undefined && deferWallet && p.min_amount === undefined && p.max_amount === undefined) {
    f.walletId = p.wallet_id;
    uncheckedWalletId = p.wallet_id;
  } else if (p.wallet_id !== undefined) {
    const wallet = await getWalletRow(db, userId, p.wallet_id, "wallet_id");
    f.walletId = wallet.id;
    walletCurrency = wallet.currency;
  }
  if (p.currency !== undefined) f.currency = p.currency;
  if (p.category !== undefined) {
    f.categoryKey = foldKey(p.category);
    // Looked up first, so that a ledger without split rows in it keeps the category index's plan.
    f.categorySplitIds = await splitIdsInCategory(db, userId, f.categoryKey);
  }
  if (p.direction !== undefined) f.direction = p.direction;
  if (p.tags_any !== undefined) f.tagsAny = normalizeTags(p.tags_any, "tags_any");
  if (p.tags_all !== undefined) f.tagsAll = normalizeTags(p.tags_all, "tags_all");
  if (p.query !== undefined) f.queryPattern = containsPattern(p.query.normalize("NFC"));

  if (p.min_amount !== undefined || p.max_amount !== undefined) {
    // "40" means 4000 cents but 40 yen: the bound is converted per exponent of the currencies in play.
    const currencies = walletCurrency
      ? [walletCurrency]
      : p.currency !== undefined
        ? [p.currency]
        : (await db("wallets").where({ user_id: userId }).distinct("currency")).map((r) => String(r.currency));
    const byExponent = new Map<number, string[]>();
    for (const c of currencies.length > 0 ? currencies : ["USD"]) {
      const e = exponentOf(c);
      byExponent.set(e, [...(byExponent.get(e) ?? []), c]);
    }
    f.magnitude = [...byExponent.entries()].map(([exponent, cs]) => ({
      currencies: byExponent.size === 1 ? null : cs.sort(),
      ...(p.min_amount !== undefined ? { min: boundInMinorUnits(p.min_amount, exponent, "min") } : {}),
      ...(p.max_amount !== undefined ? { max: boundInMinorUnits(p.max_amount, exponent, "max") } : {}),
    }));
  }
  return uncheckedWalletId === undefined ? { filter: f } : { filter: f, uncheckedWalletId };
}

const sqlValue = (v: string | bigint): Knex.Value => (typeof v === "bigint" ? bigintValue(v) : v);

// ── Cursor ───────────────────────────────────────────────────────────────────────────────────────────

/** Where a page ended: the sort, the last row's sort key and id, and the total counted on the first page. */
interface Position extends Record<string, unknown> {
  s: Sort;
  k: string;
  i: string;
  t: number;
}

function fingerprint(p: ListTransactionsParams): string {
  const { cursor: _c, limit: _l, sort, ...filters } = p;
  return queryFingerprint({ sort: sort ?? "date_desc", filters });
}

const isPosition =
  (sort: Sort) =>
  (c: Record<string, unknown>): c is Position =>
    c.s === sort &&
    typeof c.k === "string" &&
    typeof c.i === "string" &&
    Number.isSafeInteger(c.t) &&
    (c.t as number) >= 0 &&
    (sort.startsWith("date") ? /^\d{4}-\d{2}-\d{2}$/.test(c.k) : /^(0|[1-9][0-9]{0,19})$/.test(c.k)) &&
    /^txn_[A-Za-z0-9]{16,40}$/.test(c.i);

/** The columns a TransactionRow reads: not the folded keys, which only filters and groups use. */
const PAGE_COLUMNS = [
  "id",
  "user_id",
  "wallet_id",
  "date",
  "amount_minor",
  "currency",
  "direction",
  "payee",
  "description",
  "category",
  "notes",
  "external_id",
  "transfer_id",
  "counterpart_wallet_id",
  "refund_of",
  "refund",
  "created_at",
  "updated_at",
];

// ── The page ─────────────────────────────────────────────────────────────────────────────────────────

export async function listTransactions(ctx: DomainContext, p: ListTransactionsParams): Promise<ListTransactionsResult> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const sort: Sort = p.sort ?? "date_desc";
  const limit = pageSize(p.limit);
  // The wallet of a wallet_id is checked by the page's own statement (below), not looked up first.
  const { filter: filters, uncheckedWalletId } = await resolveFilterOf(db, userId, p, true);
  const after = p.cursor !== undefined ? decodeCursor(p.cursor, fingerprint(p), isPosition(sort)) : undefined;

  const byDate = sort.startsWith("date");
  const desc = sort.endsWith("desc");
  const cmp = desc ? "<" : ">";
  const keyExpr = byDate ? "date" : "abs(amount_minor)";

  // SQLite without statistics (the service never runs ANALYZE) reads a wallet's date range through
  // (user_id, date, id) and filters the wallet; (user_id, wallet_id, date, id) holds exactly that range in
  // the same order. Statistics were measured and not adopted: sampled over users of very different sizes,
  // they made a common tags_any ten times slower (docs/ledger.md). With a category or tags filter the
  // planner's choice stands: those indexes may be narrower.
  const walletRange = byDate && filters.walletId !== undefined && filters.categoryKey === undefined && !filters.tagsAny?.length && !filters.tagsAll?.length;
  const from = walletRange ? fromWithIndex(db, "transactions", "transactions_user_wallet_date_id") : db("transactions");
  const page = whereTransactions(db, from, filters, null);
  if (after) {
    const key: string | bigint = byDate ? after.k : BigInt(after.k);
    // key <= k AND (key < k OR id < i): the first conjunct is a plain range the index seeks to.
    page.andWhereRaw(`${keyExpr} ${cmp}= ? AND (${keyExpr} ${cmp} ? OR id ${cmp} ?)`, [sqlValue(key), sqlValue(key), after.i]);
  }
  const dir = desc ? "DESC" : "ASC";
  page
    .orderByRaw(`${keyExpr} ${dir}, id ${dir}`)
    .limit(limit + 1)
    .select(PAGE_COLUMNS);

  // One statement: the page, and with each of its rows (the outer query runs these on the page only:
  // inside the page query a plan that sorts would run them for every row it sorts) its tags, one
  // correlated lookup of the (transaction_id, tag) key, and a split row's parts, one of the parts'
  // primary key. The outer ORDER BY restores the page's order (the key and id are a total order) over at
  // most limit + 1 rows. On the first page, total_count comes along too: a COUNT(*) over the same filters,
  // run only when the page is full (count(*) over () of its limit + 1 rows says so: an uncorrelated
  // subquery is evaluated once, and only when the CASE reaches it); otherwise the page is the whole result.
  const tagsOfRow = tagsOfTransactionSql(db, "p.id", "tags_of_row");
  const partsOfRow = jsonRowsSql(db, PART_FIELDS, "transaction_parts x WHERE x.transaction_id = p.id", "x.position", "parts_of_row");
  // With a wallet_id, the page hangs off the user's wallet row (LEFT JOIN … ON TRUE): no row at all means
  // no such wallet (not_found, as resolveFilters says it), a row without an id an empty page.
  const outer =
    uncheckedWalletId === undefined ? db.from(page.as("p")) : db.from({ w: "wallets" }).joinRaw("LEFT JOIN ? ON TRUE", [page.as("p") as unknown as Knex.Value]);
  if (uncheckedWalletId !== undefined) outer.where({ "w.user_id": userId, "w.id": uncheckedWalletId });
  outer.select("p.*", db.raw(tagsOfRow), db.raw(partsOfRow)).orderByRaw(`${byDate ? "p.date" : "abs(p.amount_minor)"} ${dir}, p.id ${dir}`);
  if (!after) {
    const count = whereTransactions(db, db("transactions"), filters, null).count("*");
    outer.select(db.raw("CASE WHEN count(*) OVER () > ? THEN ? END AS total_of_rows", [limit, count]));
  }
  const answered = (await outer) as Record<string, unknown>[];
  if (uncheckedWalletId !== undefined && answered.length === 0) throw notFound("wallet", "wallet_id", uncheckedWalletId);
  const raw = answered.filter((r) => r.id != null);
  const rows = raw.map(coerceTransactionRow);
  const tags = raw.map((r) => {
    const t = r.tags_of_row;
    // Sorted here, as tagsOf sorts them: JavaScript's order, not the database's collation.
    return (Array.isArray(t) ? t.map(String) : (JSON.parse(String(t)) as string[])).sort();
  });
  let total: number;
  if (after) total = after.t;
  else if (rows.length <= limit)
    total = rows.length; // the whole result fits on this page: nothing to count
  else total = Number(raw[0]?.total_of_rows ?? 0);
  const { page: pageRows, hasMore, last } = splitPage(rows, limit);
  const next_cursor =
    hasMore && last
      ? encodeCursor(fingerprint(p), {
          s: sort,
          k: byDate ? last.date : (last.amount_minor < 0n ? -last.amount_minor : last.amount_minor).toString(),
          i: last.id,
          t: total,
        })
      : null;
  // A split row shows its parts (an unsplit row has none: NULL, or an empty array).
  const parts = raw.map((r, i) => {
    const list = jsonValue(r.parts_of_row) as Record<string, unknown>[] | null;
    return list && list.length > 0 ? list.map((x) => partFromRow(x, rows[i]!.currency)) : undefined;
  });
  return {
    transactions: pageRows.map((r, i) => transactionFromRow(r, tags[i]!, parts[i])),
    next_cursor,
    total_count: total,
  };
}
