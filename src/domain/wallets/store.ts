/**
 * Wallets in the database. Every query is scoped by user_id: another user's wallet id is answered exactly
 * like an id that does not exist (not_found), so ids cannot be probed.
 *
 * A balance is never stored. It is the opening balance (counted from opening_date, or always when
 * opening_date is null) plus SUM(amount_minor) of the wallet's transactions, summed by the database
 * (BIGINT; pg hands the SUM back as a numeric string, better-sqlite3 as a BigInt) and added with BigInt.
 * The sum comes from per-month totals the database keeps itself (ledgerSums).
 *
 * Exported for other resources (goals, budgets, bills check wallets they refer to):
 *   findWalletRow(db, userId, walletId) → WalletRow | undefined
 *   getWalletRow(db, userId, walletId, field) → WalletRow, or throws not_found naming `field`
 *   walletFromRow(row, balanceMinor) → Wallet (the contract's object)
 *   walletsOn(db, userId, rows, today) → Wallet[] as of the user's today, later amounts in `scheduled`
 *   walletRowsWithSums(db, userId, which, asOf, withAll) → the rows and their sums in one statement (the reads)
 *   existedOn(row, sums, asOf) / notYetOpen(row) → a wallet before its opening day has no balance
 */
import type { Knex } from "knex";
import type { Wallet, WalletBalance, WalletType } from "../../../generated/types.js";
import { notFound } from "../../errors.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";

export interface WalletRow {
  id: string;
  user_id: string;
  name: string;
  name_normalized: string;
  type: WalletType;
  currency: string;
  opening_balance_minor: bigint;
  opening_date: string | null;
  archived: boolean;
  /** Counts toward net worth (src/domain/networth). */
  in_net_worth: boolean;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

/** Driver values → typed row (BIGINT as BigInt, flags as booleans). */
export function coerceWalletRow(raw: Record<string, unknown>): WalletRow {
  return {
    id: String(raw.id),
    user_id: String(raw.user_id),
    name: String(raw.name),
    name_normalized: String(raw.name_normalized),
    type: String(raw.type) as WalletType,
    currency: String(raw.currency),
    opening_balance_minor: toMinorBigInt(raw.opening_balance_minor as MinorLike),
    opening_date: raw.opening_date == null ? null : String(raw.opening_date),
    archived: raw.archived === true || raw.archived === 1n || raw.archived === 1 || raw.archived === "1" || raw.archived === "true",
    in_net_worth: !(
      raw.in_net_worth === false ||
      raw.in_net_worth === 0n ||
      raw.in_net_worth === 0 ||
      raw.in_net_worth === "0" ||
      raw.in_net_worth === "false"
    ),
    notes: raw.notes == null ? null : String(raw.notes),
    created_at: String(raw.created_at),
    updated_at: String(raw.updated_at),
  };
}

export function walletFromRow(row: WalletRow, balanceMinor: bigint): Wallet {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    currency: row.currency,
    opening_balance: toMoney(row.opening_balance_minor, row.currency),
    opening_date: row.opening_date,
    archived: row.archived,
    // Stated only when the wallet is left out of net worth: the usual case costs a model nothing.
    ...(row.in_net_worth ? {} : { in_net_worth: false }),
    notes: row.notes,
    balance: toMoney(balanceMinor, row.currency),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function findWalletRow(db: Knex, userId: string, walletId: string): Promise<WalletRow | undefined> {
  const raw = await db("wallets").where({ user_id: userId, id: walletId }).first();
  return raw ? coerceWalletRow(raw) : undefined;
}

export async function getWalletRow(db: Knex, userId: string, walletId: string, field: string): Promise<WalletRow> {
  const row = await findWalletRow(db, userId, walletId);
  if (!row) throw notFound("wallet", field, walletId);
  return row;
}

export async function listWalletRows(db: Knex, userId: string, opts: { includeArchived: boolean }): Promise<WalletRow[]> {
  const q = db("wallets").where({ user_id: userId });
  if (!opts.includeArchived) q.andWhere({ archived: false });
  const rows = await q.orderBy([{ column: "name_normalized" }, { column: "id" }]);
  return rows.map(coerceWalletRow);
}

/**
 * SUM(amount_minor) per wallet of the user's transactions dated on or before `asOf` (all of them when
 * asOf is undefined), optionally only for some wallets.
 *
 * Read from wallet_month_totals (kept by triggers on transactions; migration 202611220001) plus the
 * shorter half of asOf's own month from the transactions, an index range on (user_id, wallet_id, date,
 * id, amount_minor) of at most half a month:
 *   day 1–15   the months before asOf's month, plus that month's rows up to asOf;
 *   day 16–31  the months up to and including asOf's month, minus that month's rows after asOf.
 * A month is the date's first seven characters, so `month < M`, `date >= M` and `date < M+1` split the
 * rows exactly. Without asOf every month counts, future-dated ones included (a wallet's current balance
 * is "opening balance plus all transactions").
 */
export async function ledgerSums(db: Knex, userId: string, opts: { walletIds?: readonly string[]; asOf?: string }): Promise<Map<string, bigint>> {
  if (opts.walletIds && opts.walletIds.length === 0) return new Map();
  const rows: { wallet_id: string; total: MinorLike }[] = await ledgerSumsQuery(db, userId, opts);
  return new Map(rows.map((r) => [String(r.wallet_id), toMinorBigInt(r.total ?? 0n)]));
}

/** ledgerSums as a query (wallet_id, total), to be run or joined. */
function ledgerSumsQuery(db: Knex, userId: string, opts: { walletIds?: readonly string[]; asOf?: string }): Knex.QueryBuilder {
  const scoped = (q: Knex.QueryBuilder) => {
    q.where("user_id", userId);
    if (opts.walletIds) q.whereIn("wallet_id", [...opts.walletIds]);
    return q;
  };
  const months = scoped(db("wallet_month_totals").select("wallet_id", { total: "total_minor" }));
  let source: Knex.QueryBuilder;
  if (opts.asOf === undefined) {
    source = months;
  } else {
    const month = opts.asOf.slice(0, 7);
    let partial: Knex.QueryBuilder;
    if (Number(opts.asOf.slice(8, 10)) <= 15) {
      months.andWhere("month", "<", month);
      partial = scoped(db("transactions").select("wallet_id", { total: "amount_minor" }))
        .andWhere("date", ">=", month)
        .andWhere("date", "<=", opts.asOf);
    } else {
      months.andWhere("month", "<=", month);
      partial = scoped(db("transactions").select("wallet_id", { total: db.raw("-amount_minor") }))
        .andWhere("date", ">", opts.asOf)
        .andWhere("date", "<", nextMonth(month));
    }
    source = months.unionAll(partial);
  }
  return db.from(source.as("s")).select("s.wallet_id").sum({ total: "s.total" }).groupBy("s.wallet_id");
}

/** Wallet rows with their ledger sums (ledgerSums) as of a day and, when asked, of every date. */
export interface WalletRowsWithSums {
  rows: WalletRow[];
  asOf: Map<string, bigint>;
  all: Map<string, bigint>;
}

/**
 * The wallet rows a read needs, one wallet (not_found naming `field` when the user has none of that id)
 * or the user's wallets by name (archived ones when asked), with their ledger sums as of `asOf` and, with
 * `withAll`, of every date: one statement, each sum a grouped ledgerSums query joined on the wallet id.
 * Without a wallet id the sums cover all the user's wallets (per-month totals: a few rows per wallet).
 */
export async function walletRowsWithSums(
  db: Knex,
  userId: string,
  which: { walletId: string; field: string } | { includeArchived: boolean },
  asOf: string,
  withAll: boolean,
): Promise<WalletRowsWithSums> {
  const walletIds = "walletId" in which ? [which.walletId] : undefined;
  const q = db({ w: "wallets" })
    .where("w.user_id", userId)
    .select("w.*", { sum_as_of: "a.total" })
    .leftJoin(ledgerSumsQuery(db, userId, { walletIds, asOf }).as("a"), "a.wallet_id", "w.id");
  if (withAll) q.select({ sum_all: "b.total" }).leftJoin(ledgerSumsQuery(db, userId, { walletIds }).as("b"), "b.wallet_id", "w.id");
  if ("walletId" in which) q.andWhere("w.id", which.walletId);
  else if (!which.includeArchived) q.andWhere("w.archived", false);
  const raw = (await q.orderBy([{ column: "w.name_normalized" }, { column: "w.id" }])) as Record<string, unknown>[];
  if ("walletId" in which && raw.length === 0) throw notFound("wallet", which.field, which.walletId);
  const sums = (column: string) => new Map(raw.filter((r) => r[column] != null).map((r) => [String(r.id), toMinorBigInt(r[column] as MinorLike)]));
  return { rows: raw.map(coerceWalletRow), asOf: sums("sum_as_of"), all: withAll ? sums("sum_all") : new Map() };
}

/** 'YYYY-MM' → the month after it, 'YYYY-MM'. */
function nextMonth(month: string): string {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return m === 12 ? `${String(y + 1).padStart(4, "0")}-01` : `${month.slice(0, 4)}-${String(m + 1).padStart(2, "0")}`;
}

/** The opening balance as it counts at the end of `asOf` (undefined: it always counts). */
export function openingOn(row: Pick<WalletRow, "opening_balance_minor" | "opening_date">, asOf?: string): bigint {
  if (asOf === undefined || row.opening_date === null || row.opening_date <= asOf) return row.opening_balance_minor;
  return 0n;
}

export function balanceOf(row: WalletRow, sums: Map<string, bigint>, asOf?: string): bigint {
  return openingOn(row, asOf) + (sums.get(row.id) ?? 0n);
}

/**
 * Wallets as the user sees them on `today` (their day): the balance at its end, and what is dated later
 * stated apart as `scheduled` (absent when nothing is), never silently added. list_wallets and the
 * wallet write answers both use it, so a wallet's balance means one thing everywhere.
 */
export async function walletsOn(db: Knex, userId: string, rows: readonly WalletRow[], today: string): Promise<Wallet[]> {
  const walletIds = rows.map((r) => r.id);
  const upToToday = await ledgerSums(db, userId, { walletIds, asOf: today });
  const all = await ledgerSums(db, userId, { walletIds });
  return walletsFromSums(rows, upToToday, all, today);
}

/** walletsOn's answer from sums already read (walletRowsWithSums). */
export function walletsFromSums(rows: readonly WalletRow[], upToToday: Map<string, bigint>, all: Map<string, bigint>, today: string): Wallet[] {
  return rows.map((row) => {
    const wallet = walletFromRow(row, balanceOf(row, upToToday, today));
    const scheduled = (all.get(row.id) ?? 0n) - (upToToday.get(row.id) ?? 0n);
    return scheduled === 0n ? wallet : { ...wallet, scheduled: toMoney(scheduled, row.currency) };
  });
}

/** One wallet as of the user's `today` (walletsOn). */
export async function findWallet(db: Knex, userId: string, walletId: string, today: string): Promise<Wallet | undefined> {
  const row = await findWalletRow(db, userId, walletId);
  return row ? (await walletsOn(db, userId, [row], today))[0] : undefined;
}

export function walletBalance(row: WalletRow, balanceMinor: bigint): WalletBalance {
  return { wallet_id: row.id, name: row.name, type: row.type, currency: row.currency, balance: toMoney(balanceMinor, row.currency) };
}

/**
 * Whether the wallet existed at the end of `asOf`: not before its opening_date unless a transaction of it
 * already counts by then (`sums` as of asOf). A balance before that day is not 0.00 but no balance at all.
 */
export function existedOn(row: WalletRow, sums: Map<string, bigint>, asOf: string): boolean {
  return row.opening_date === null || row.opening_date <= asOf || (sums.get(row.id) ?? 0n) !== 0n;
}

/** The WalletBalance of a wallet that did not exist yet on the as_of day: no balance, and when it opened. */
export function notYetOpen(row: WalletRow): WalletBalance {
  return { wallet_id: row.id, name: row.name, type: row.type, currency: row.currency, balance: null, opened_on: row.opening_date! };
}

/** Exact totals per currency, ordered by currency code. */
export function totalsPerCurrency(items: Iterable<{ currency: string; minor: bigint }>): { currency: string; minor: bigint }[] {
  const totals = new Map<string, bigint>();
  for (const { currency, minor } of items) totals.set(currency, (totals.get(currency) ?? 0n) + minor);
  return [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([currency, minor]) => ({ currency, minor }));
}
