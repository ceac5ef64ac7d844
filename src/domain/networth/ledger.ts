/**
 * Everything get_net_worth reads, in ONE statement (one round trip on Postgres; docs/decisions.md#net-worth-one-statement):
 * the home currency, the wallets that count (not archived, in_net_worth) with their first transaction,
 * the person's rates with the home currency, and each wallet's transaction total as of every day of
 * the series, from one pass over the monthly totals plus the short part of each day's own month.
 *
 * A wallet's total as of day d is ledgerSums' (src/domain/wallets/store.ts) split, here for every day at once:
 *   day 1–15   the months before d's month, plus that month's rows up to d;
 *   day 16–31  the months up to and including d's month, minus that month's rows after d.
 * So each day has a month cutoff C (months < C count whole) and a short range of rows added or taken
 * away. The month totals below the last cutoff are read once, each month into the bucket of the first
 * cutoff above it; a day's months are the buckets up to its own cutoff. The days' short ranges overlap
 * in a weekly series, so each row is read once, in the slice between two consecutive range ends it falls
 * in; a day's short range is the slices inside it. Each bucket and slice of each wallet is a scalar
 * SUM over one index range (wallet_month_totals' key; transactions (user_id, wallet_id, date, id,
 * amount_minor)), which both engines run without a sort or a grouping.
 *
 * The statement is a UNION ALL of differently shaped rows (a `kind` and text columns), so that it is the
 * same SQL on SQLite and Postgres: numbers travel as text and are read back with BigInt, exactly.
 */
import type { Knex } from "knex";
import { monthStart, plusDays } from "../../calendar/days.js";
import { rawRows } from "../../db/dialect.js";
import type { ExchangeRate } from "./rates.js";

/** The user has no row (cannot happen for a caller): the default currency of a new user. */
const FALLBACK_HOME = "USD";

export interface CountedWallet {
  id: string;
  type: string;
  currency: string;
  opening_balance_minor: bigint;
  opening_date: string | null;
  /** The first day it existed: its opening date, else the earlier of its creation day and first transaction. */
  first_day: string;
}

export interface NetWorthInputs {
  home: string;
  wallets: CountedWallet[];
  /** The rates between home and another currency, by date and id (as rateFor expects them). */
  rates: ExchangeRate[];
  /** sums[i].get(walletId): the wallet's transactions dated on or before days[i] (absent: none). */
  sums: Map<string, bigint>[];
}

interface DayPlan {
  /** Months before this count whole. */
  cutoff: string;
  /** The rows in [lo, hi) are added (sign 1) or taken away (sign -1). */
  lo: string;
  hi: string;
  sign: 1n | -1n;
}

function planDay(day: string): DayPlan {
  const first = monthStart(day);
  const next = monthStart(day, 1);
  return Number(day.slice(8, 10)) <= 15
    ? { cutoff: first.slice(0, 7), lo: first, hi: plusDays(day, 1), sign: 1n }
    : { cutoff: next.slice(0, 7), lo: plusDays(day, 1), hi: next, sign: -1n };
}

/** The short ranges merged where they overlap or touch: [lo, hi) each, ascending. */
function mergeRanges(plans: readonly DayPlan[]): { lo: string; hi: string }[] {
  const sorted = plans.filter((p) => p.lo < p.hi).sort((x, y) => (x.lo < y.lo ? -1 : x.lo > y.lo ? 1 : 0));
  const out: { lo: string; hi: string }[] = [];
  for (const { lo, hi } of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last.hi) last.hi = hi > last.hi ? hi : last.hi;
    else out.push({ lo, hi });
  }
  return out;
}

interface Statement {
  sql: string;
  bindings: Record<string, string>;
  plans: DayPlan[];
  /** The month cutoffs, ascending: month bucket 0 is every month before cutoffs[0], bucket j those in [cutoffs[j-1], cutoffs[j]). */
  cutoffs: string[];
  /** The ends of the short ranges, ascending: row slice j is the rows in [ends[j], ends[j+1]). */
  ends: string[];
}

/** The statement of readNetWorthInputs, with named bindings. */
function netWorthStatement(userId: string, days: readonly string[]): Statement {
  const plans = days.map(planDay);
  const cutoffs = [...new Set(plans.map((p) => p.cutoff))].sort();
  const ranges = mergeRanges(plans);
  const ends = [...new Set(plans.flatMap((p) => (p.lo < p.hi ? [p.lo, p.hi] : [])))].sort();
  // The slices that hold rows some day needs (those between two merged ranges hold none).
  const slices = ends.slice(0, -1).flatMap((lo, j) => (ranges.some((r) => r.lo <= lo && ends[j + 1]! <= r.hi) ? [j] : []));
  // Named bindings (:name), so that the text can be put together in any order. The numbers written into
  // the SQL (bucket and slice numbers) are this function's own integers.
  const bindings: Record<string, string> = { user: userId, fallback: FALLBACK_HOME, none: "" };
  cutoffs.forEach((c, j) => (bindings[`cut${j}`] = c));
  ends.forEach((e, j) => (bindings[`end${j}`] = e));
  // Month bucket j: the months in [cutoffs[j-1], cutoffs[j]) ('' below every month for bucket 0).
  const buckets = cutoffs.map((_, j) => `SELECT ${j} AS k, CAST(${j === 0 ? ":none" : `:cut${j - 1}`} AS TEXT) AS lo, CAST(:cut${j} AS TEXT) AS hi`);
  const rows = slices.map((j) => `SELECT ${j} AS k, CAST(:end${j} AS TEXT) AS lo, CAST(:end${j + 1} AS TEXT) AS hi`);
  // Every sum is a scalar subquery over one index range per wallet and bucket or slice: no sort, no grouping.
  const sql = `WITH u AS (SELECT COALESCE((SELECT default_currency FROM users WHERE id = :user), :fallback) AS home),
w AS (SELECT id, type, currency, opening_balance_minor, opening_date, created_at FROM wallets WHERE user_id = :user AND NOT archived AND in_net_worth),
mb AS (${buckets.join(" UNION ALL ")})${rows.length === 0 ? "" : `,\nsl AS (${rows.join(" UNION ALL ")})`}
SELECT 'h' AS kind, NULL AS id, CAST(NULL AS INTEGER) AS k, u.home AS a, NULL AS b, NULL AS c, NULL AS d, NULL AS e, NULL AS f FROM u
UNION ALL
SELECT 'w', w.id, NULL, w.type, w.currency, CAST(w.opening_balance_minor AS TEXT), w.opening_date,
       CASE WHEN w.opening_date IS NULL THEN (SELECT min(t.date) FROM transactions t WHERE t.user_id = :user AND t.wallet_id = w.id) END,
       w.created_at
FROM w
UNION ALL
SELECT 'r', r.id, NULL, r.base, r.quote, r.rate, r.date, NULL, NULL FROM exchange_rates r CROSS JOIN u
WHERE r.user_id = :user AND (r.base = u.home OR r.quote = u.home)
UNION ALL
SELECT 'm', w.id, mb.k, NULL, NULL,
       (SELECT CAST(SUM(m.total_minor) AS TEXT) FROM wallet_month_totals m WHERE m.user_id = :user AND m.wallet_id = w.id AND m.month >= mb.lo AND m.month < mb.hi),
       NULL, NULL, NULL
FROM w CROSS JOIN mb
${
  rows.length === 0
    ? ""
    : `UNION ALL
SELECT 's', w.id, sl.k, NULL, NULL,
       (SELECT CAST(SUM(t.amount_minor) AS TEXT) FROM transactions t WHERE t.user_id = :user AND t.wallet_id = w.id AND t.date >= sl.lo AND t.date < sl.hi),
       NULL, NULL, NULL
FROM w CROSS JOIN sl
`
}ORDER BY kind, d, id`;
  return { sql, bindings, plans, cutoffs, ends };
}

/** `days` ascending (seriesDays' order), at least one. */
export async function readNetWorthInputs(db: Knex, userId: string, days: readonly string[]): Promise<NetWorthInputs> {
  const { sql, bindings, plans, cutoffs, ends } = netWorthStatement(userId, days);
  const rows = rawRows(await db.raw(sql, bindings));

  let home = FALLBACK_HOME;
  const wallets: CountedWallet[] = [];
  const rates: ExchangeRate[] = [];
  const months = new Map<string, bigint[]>(); // wallet → total per bucket
  const slices = new Map<string, bigint[]>(); // wallet → total per row slice
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  for (const r of rows) {
    const id = text(r.id)!;
    switch (r.kind) {
      case "h":
        home = String(r.a);
        break;
      case "w": {
        const opening = text(r.d);
        const created = String(r.f).slice(0, 10);
        const tx = text(r.e);
        const first = opening ?? (tx !== null && tx < created ? tx : created);
        wallets.push({ id, type: String(r.a), currency: String(r.b), opening_balance_minor: BigInt(String(r.c)), opening_date: opening, first_day: first });
        break;
      }
      case "r":
        rates.push({ id, base: String(r.a), quote: String(r.b), rate: String(r.c), date: String(r.d) });
        break;
      case "m":
      case "s": {
        const into = r.kind === "m" ? months : slices;
        if (r.c === null) break; // a wallet without months before the first cutoff
        const list = into.get(id) ?? [];
        list[Number(r.k)] = BigInt(String(r.c));
        into.set(id, list);
        break;
      }
    }
  }
  // Each wallet's months up to each cutoff (running totals over the buckets), then each day's short range.
  const upTo = new Map<string, bigint[]>();
  for (const [id, buckets] of months) {
    let running = 0n;
    upTo.set(
      id,
      cutoffs.map((_, j) => (running += buckets[j] ?? 0n)),
    );
  }
  const sums = plans.map((p) => {
    const j = cutoffs.indexOf(p.cutoff);
    const from = ends.indexOf(p.lo);
    const to = ends.indexOf(p.hi);
    const out = new Map<string, bigint>();
    for (const w of wallets) {
      let short = 0n;
      const mine = slices.get(w.id);
      if (mine && p.lo < p.hi) for (let x = from; x < to; x++) short += mine[x] ?? 0n;
      const total = (upTo.get(w.id)?.[j] ?? 0n) + p.sign * short;
      if (total !== 0n) out.set(w.id, total);
    }
    return out;
  });
  return { home, wallets, rates, sums };
}
