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
 * in a weekly series, so they are merged and each row is read once, into the slice between two range
 * ends it falls in (an index range per wallet and merged range on (user_id, wallet_id, date, id,
 * amount_minor)); a day's short range is the slices inside it.
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

/** The statement of readNetWorthInputs, with named bindings (exported for scripts/net-worth-bench.ts's query plans). */
export function netWorthStatement(userId: string, days: readonly string[]): Statement {
  const plans = days.map(planDay);
  const cutoffs = [...new Set(plans.map((p) => p.cutoff))].sort();
  const ranges = mergeRanges(plans);
  const ends = [...new Set(plans.flatMap((p) => (p.lo < p.hi ? [p.lo, p.hi] : [])))].sort();
  // Named bindings (:name), so that the text can be put together in any order. The numbers written into
  // the SQL (bucket and slice numbers) are this function's own integers.
  const bindings: Record<string, string> = { user: userId, fallback: FALLBACK_HOME };
  cutoffs.forEach((c, j) => (bindings[`cut${j}`] = c));
  ends.forEach((e, j) => (bindings[`end${j}`] = e));
  ranges.forEach((r, j) => Object.assign(bindings, { [`lo${j}`]: r.lo, [`hi${j}`]: r.hi }));
  const lastCut = `:cut${cutoffs.length - 1}`;
  const monthBucket = `CASE ${cutoffs
    .map((_, j) => `WHEN m.month < :cut${j} THEN ${j}`)
    .slice(1)
    .join(" ")} END`;
  const slice = `CASE ${ends
    .map((_, j) => `WHEN t.date < :end${j} THEN ${j - 1}`)
    .slice(1)
    .join(" ")} END`;
  const later = (sql: string) => `UNION ALL\n${sql}\n`;
  const sql = `WITH u AS (SELECT COALESCE((SELECT default_currency FROM users WHERE id = :user), :fallback) AS home),
w AS (SELECT id, type, currency, opening_balance_minor, opening_date, created_at FROM wallets WHERE user_id = :user AND NOT archived AND in_net_worth)${
    ranges.length === 0 ? "" : `,\nrng AS (${ranges.map((_, j) => `SELECT CAST(:lo${j} AS TEXT) AS lo, CAST(:hi${j} AS TEXT) AS hi`).join(" UNION ALL ")})`
  }
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
SELECT 'm', w.id, 0, NULL, NULL,
       (SELECT CAST(SUM(m.total_minor) AS TEXT) FROM wallet_month_totals m WHERE m.user_id = :user AND m.wallet_id = w.id AND m.month < :cut0),
       NULL, NULL, NULL
FROM w
${
  cutoffs.length === 1
    ? ""
    : later(`SELECT 'm', s.wallet_id, s.k, NULL, NULL, CAST(SUM(s.total_minor) AS TEXT), NULL, NULL, NULL
FROM (SELECT m.wallet_id, ${monthBucket} AS k, m.total_minor FROM w CROSS JOIN wallet_month_totals m
      WHERE m.user_id = :user AND m.wallet_id = w.id AND m.month >= :cut0 AND m.month < ${lastCut}) s
GROUP BY s.wallet_id, s.k`)
}${
    ranges.length === 0
      ? ""
      : later(`SELECT 's', s.wallet_id, s.k, NULL, NULL, CAST(SUM(s.amount_minor) AS TEXT), NULL, NULL, NULL
FROM (SELECT t.wallet_id, ${slice} AS k, t.amount_minor FROM w CROSS JOIN rng CROSS JOIN transactions t
      WHERE t.user_id = :user AND t.wallet_id = w.id AND t.date >= rng.lo AND t.date < rng.hi) s
GROUP BY s.wallet_id, s.k`)
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
