/**
 * How a budget stands on a day (as_of): the period that contains it, what was spent in scope, what is
 * left, the carry-in from earlier periods, and the pace. Spending comes from SQL aggregation over
 * `expense_day_totals` (the expenses per day, currency, wallet, category and tag set, kept by triggers
 * in the same transaction as every ledger write; migration 202611220101): SUM and COUNT per day in
 * scope, for all the budgets asked about in one statement. Only the per-day sums reach this process,
 * which buckets them into periods for the rollover chain.
 *
 * Rules (openrpc.json, BudgetStatus and Budget), with the choices made where the contract is silent:
 * - In scope: direction 'expense', the budget's currency, and every non-empty scope list matched —
 *   category one of `categories`, at least one tag of `tags`, wallet one of `wallet_ids`. Categories
 *   and tags compare case-insensitively through the ledger's folded forms (category_key, the folded
 *   tags in tags_key; foldKey), so both engines agree beyond ASCII. Income and transfers
 *   never count. spent = −SUM(amount_minor).
 * - The reported period is the one containing as_of, cut to the budget's start_date and end_date
 *   (a budget that starts mid-month has a short first period with the full limit).
 * - spent and transaction_count cover period_start through as_of: expenses dated after as_of (already
 *   entered for later days) are not spent yet, and the projection extrapolates what has been spent.
 * - carry_unspent: each earlier period, from the one containing start_date, hands on
 *   max(0, limit + carried_in − spent) to the next; overspending is not carried. Earlier periods are
 *   evaluated with the budget's current limit and scope (no history of definitions is kept).
 * - utilization = spent / (limit + carried_in), rounded to 4 decimals; percent_elapsed = elapsed days
 *   (as_of included) / period days × 100, rounded to 2 decimals; projected_spend = spent × period days /
 *   elapsed days, rounded half up to the minor unit, except that a single charge making up two thirds
 *   of spent or more is counted once (projectionOf); pace is read off that projection (paceOf), so an on_track
 *   budget never projects above its limit; alert is utilization × 100 ≥ alert_threshold, exactly.
 */
import type { Knex } from "knex";
import type { BudgetStatus, Pace } from "../../../generated/types.js";
import { jsonArrayHasAnySql, rawRows } from "../../db/dialect.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { spendingSql } from "../shared/spending.js";
import { foldKey } from "../shared/text.js";
import { dayDiff, periodContaining, periodStart, plusDays, type PeriodRule } from "./periods.js";
import type { BudgetRecord } from "./store.js";

export interface Scope {
  currency: string;
  categories: readonly string[];
  tags: readonly string[];
  walletIds: readonly string[];
}

export interface DailySpending {
  date: string;
  /** Positive magnitude of the day's in-scope expenses net of refunds, in minor units. */
  spent: bigint;
  /** The in-scope expenses (a split one's parts in scope count once each); refunds are not counted. */
  count: number;
  /** The in-scope refunds, already taken off spent (positive). */
  refunds: bigint;
}

/** What one budget's spending query covers: its scope, from `from` to `to` (inclusive). */
export interface SpendingRequest {
  scope: Scope;
  from: string;
  to: string;
}

/** The most requests one statement carries: 2 result columns each stays far below SQLite's column limit. */
const REQUESTS_PER_STATEMENT = 100;

/**
 * SUM and COUNT of the in-scope expenses of each day, per request (oldest day first; days without
 * spending are absent), in one statement for up to REQUESTS_PER_STATEMENT requests.
 *
 * Requests with the same date range share one scan of the user's expense totals, grouped by day, with
 * one pair of SUM(CASE …) per request (amount and count) holding that request's scope; ranges that differ
 * (rollover from start_date, weekly beside monthly periods, over-limit checks to different period ends)
 * become further branches of a UNION ALL, so a long rollover range never makes the short ranges read
 * its history. A branch whose requests all restrict categories (or wallets) also filters on the union
 * of those lists, so that only rows some request can use reach the aggregates.
 */
export async function dailySpendingBatch(db: Knex, userId: string, requests: readonly SpendingRequest[]): Promise<DailySpending[][]> {
  const out: DailySpending[][] = requests.map(() => []);
  const live = requests.map((r, i) => ({ r, i })).filter(({ r }) => r.from <= r.to);
  for (let c = 0; c < live.length; c += REQUESTS_PER_STATEMENT) {
    const chunk = live.slice(c, c + REQUESTS_PER_STATEMENT);
    const rows = await spendingStatement(
      db,
      userId,
      chunk.map(({ r }) => r),
    );
    for (const row of rows) {
      const date = String(row.date);
      chunk.forEach(({ i }, j) => {
        const n = row[`n${j}`];
        const refunds = toMinorBigInt((row[`r${j}`] ?? 0) as MinorLike);
        if ((n === null || n === undefined || Number(n) === 0) && refunds === 0n) return;
        (out[i] as DailySpending[]).push({ date, spent: -toMinorBigInt((row[`s${j}`] ?? 0) as MinorLike), count: Number(n ?? 0), refunds });
      });
    }
  }
  for (const days of out) days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return out;
}

/**
 * What a budget's spending adds up, per day and key: the expense totals the triggers keep per transaction
 * row, corrected for split expenses (each one's whole taken out, its parts put in, each under its own
 * category and tags) and for refunds (an income, or part of one, flagged refund: added, which takes it off
 * spending, not counted as an expense, and its amount kept apart in refund_minor). Split and refund rows
 * are few and reached through their own indexes (transaction_parts by user, the partial index of refunds),
 * so the correction never reads the user's history. Each branch binds the user and the date range.
 */
// The one rule of spending (shared/spending.ts) over a part's line (its transaction x, the part w) and
// over an unsplit row (x alone).
const PART = spendingSql({ direction: "x.direction", refund: "w.refund", amount: "w.amount_minor" });
const ROW = spendingSql({ direction: "x.direction", refund: "x.refund", amount: "x.amount_minor" });
const SPENDING_SOURCE = `(SELECT user_id, date, currency, wallet_id, category_key, tags_key, total_minor, row_count, 0 AS refund_minor
    FROM expense_day_totals WHERE user_id = ? AND date >= ? AND date <= ?
  UNION ALL SELECT x.user_id, x.date, x.currency, x.wallet_id, COALESCE(x.category_key, ''), x.tags_key, -x.amount_minor, -1, 0
    FROM transaction_parts w JOIN transactions x ON x.id = w.transaction_id
    WHERE w.user_id = ? AND w.position = 0 AND x.direction = 'expense' AND x.date >= ? AND x.date <= ?
  UNION ALL SELECT x.user_id, x.date, x.currency, x.wallet_id, COALESCE(w.category_key, ''), w.tags, w.amount_minor, CASE WHEN x.direction = 'expense' THEN 1 ELSE 0 END, CASE WHEN ${PART.isRefund} THEN w.amount_minor ELSE 0 END
    FROM transaction_parts w JOIN transactions x ON x.id = w.transaction_id
    WHERE w.user_id = ? AND ${PART.isSpending} AND x.date >= ? AND x.date <= ?
  UNION ALL SELECT x.user_id, x.date, x.currency, x.wallet_id, COALESCE(x.category_key, ''), x.tags_key, x.amount_minor, 0, x.amount_minor
    FROM transactions x WHERE x.user_id = ? AND ${ROW.isRefund} AND x.date >= ? AND x.date <= ?)`;

function spendingSourceBindings(userId: string, from: string, to: string): unknown[] {
  return [userId, from, to, userId, from, to, userId, from, to, userId, from, to];
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => "?").join(", ");
}

async function spendingStatement(db: Knex, userId: string, requests: readonly SpendingRequest[]): Promise<Record<string, unknown>[]> {
  const branches = new Map<string, number[]>();
  requests.forEach((r, j) => {
    const key = `${r.from}..${r.to}`;
    const list = branches.get(key);
    if (list) list.push(j);
    else branches.set(key, [j]);
  });
  // Folded once per request: the totals' category_key and tags_key hold the ledger's folded forms (foldKey).
  const folded = requests.map((r) => ({
    categories: [...new Set(r.scope.categories.map(foldKey))],
    tags: [...new Set(r.scope.tags.map(foldKey))],
    walletIds: [...new Set(r.scope.walletIds)],
  }));
  // The CTEs come first in the text, so their bindings go first too.
  const ctes: string[] = [];
  const cteBindings: unknown[] = [];
  const selects: string[] = [];
  const selectBindings: unknown[] = [];
  for (const members of branches.values()) {
    const inBranch = new Set(members);
    const withTags = members.some((j) => (folded[j] as (typeof folded)[number]).tags.length > 0);
    const flags: string[] = [];
    const bindings: unknown[] = [];
    const cols: string[] = [withTags ? "date" : "t.date AS date"];
    for (let j = 0; j < requests.length; j++) {
      if (!inBranch.has(j)) {
        // Typed: Postgres would resolve a column that is NULL in the first two branches of a UNION to text.
        cols.push(`CAST(NULL AS NUMERIC) AS s${j}`, `CAST(NULL AS NUMERIC) AS n${j}`, `CAST(NULL AS NUMERIC) AS r${j}`);
        continue;
      }
      const r = requests[j] as SpendingRequest;
      const f = folded[j] as (typeof folded)[number];
      const conds = ["t.currency = ?"];
      const condBindings: unknown[] = [r.scope.currency];
      if (f.categories.length > 0) {
        conds.push(`t.category_key IN (${placeholders(f.categories)})`);
        condBindings.push(...f.categories);
      }
      if (f.walletIds.length > 0) {
        conds.push(`t.wallet_id IN (${placeholders(f.walletIds)})`);
        condBindings.push(...f.walletIds);
      }
      if (f.tags.length > 0) {
        // tags_key is the JSON array of the expenses' whole tag set: "at least one of" without counting twice.
        conds.push(jsonArrayHasAnySql(db, "t.tags_key", f.tags.length));
        condBindings.push(...f.tags);
      }
      const cond = conds.join(" AND ");
      if (withTags) {
        flags.push(`CASE WHEN ${cond} THEN 1 ELSE 0 END AS m${j}`);
        bindings.push(...condBindings);
        cols.push(`SUM(m${j} * total_minor) AS s${j}`, `SUM(m${j} * row_count) AS n${j}`, `SUM(m${j} * refund_minor) AS r${j}`);
      } else {
        cols.push(
          `SUM(CASE WHEN ${cond} THEN t.total_minor END) AS s${j}`,
          `SUM(CASE WHEN ${cond} THEN t.row_count END) AS n${j}`,
          `SUM(CASE WHEN ${cond} THEN t.refund_minor END) AS r${j}`,
        );
        bindings.push(...condBindings, ...condBindings, ...condBindings);
      }
    }
    const first = requests[members[0] as number] as SpendingRequest;
    // FROM comes after the columns and before WHERE, in the text and in the bindings.
    bindings.push(...spendingSourceBindings(userId, first.from, first.to));
    const where = ["t.user_id = ?", "t.date >= ?", "t.date <= ?"];
    bindings.push(userId, first.from, first.to);
    const currencies = [...new Set(members.map((j) => (requests[j] as SpendingRequest).scope.currency))];
    where.push(`t.currency IN (${placeholders(currencies)})`);
    bindings.push(...currencies);
    for (const list of ["categories", "walletIds"] as const) {
      if (!members.every((j) => (folded[j] as (typeof folded)[number])[list].length > 0)) continue;
      const union = [...new Set(members.flatMap((j) => (folded[j] as (typeof folded)[number])[list]))];
      where.push(`t.${list === "categories" ? "category_key" : "wallet_id"} IN (${placeholders(union)})`);
      bindings.push(...union);
    }
    if (withTags) {
      // A scope written into both aggregates is tested twice per row, once for the SUM and once for the
      // COUNT; with tags that is a walk over the row's tags_key each time. So such a branch tests each
      // scope once per row into a flag and sums the flags; MATERIALIZED keeps SQLite from flattening the
      // flags back into the aggregates.
      const name = `b${ctes.length}`;
      ctes.push(
        `${name} AS MATERIALIZED (SELECT t.date AS date, t.total_minor AS total_minor, t.row_count AS row_count, t.refund_minor AS refund_minor, ${flags.join(", ")} FROM ${SPENDING_SOURCE} t WHERE ${where.join(" AND ")})`,
      );
      cteBindings.push(...bindings);
      selects.push(`SELECT ${cols.join(", ")} FROM ${name} GROUP BY date`);
    } else {
      selects.push(`SELECT ${cols.join(", ")} FROM ${SPENDING_SOURCE} t WHERE ${where.join(" AND ")} GROUP BY t.date`);
      selectBindings.push(...bindings);
    }
  }
  const sql = `${ctes.length > 0 ? `WITH ${ctes.join(", ")} ` : ""}${selects.join(" UNION ALL ")}`;
  const result = (await db.raw(sql, [...cteBindings, ...selectBindings] as Knex.RawBinding[])) as unknown;
  return rawRows(result);
}

/** n / d rounded half up, for n ≥ 0 and d > 0. */
function roundDiv(n: bigint, d: bigint): bigint {
  return (2n * n + d) / (2n * d);
}

/**
 * The pace, read off the projection it is reported with, so the two never contradict: over when the
 * projection exceeds what the period allows (base); under when spending runs more than 5 points of the
 * limit below the share of the period elapsed (for a linear projection, utilization% < elapsed% − 5,
 * since projected·e/d is then the spending); otherwise on_track. Compared exactly by cross-multiplying.
 */
function paceOf(projected: bigint, base: bigint, elapsedDays: bigint, periodDays: bigint): Pace {
  if (projected > base) return "over";
  if (100n * projected * elapsedDays < (100n * elapsedDays - 5n * periodDays) * base) return "under";
  return "on_track";
}

/**
 * The projection to the period's end. Linear (spent × period days / elapsed days), except when one charge
 * makes up two thirds or more of what was spent (a day with a single in-scope expense) before the period ends:
 * a monthly ticket does not recur within its month, so it is counted once and only the rest is
 * extrapolated; the status then names that charge (single_charge).
 */
function projectionOf(spent: bigint, largestSingle: bigint, elapsedDays: bigint, periodDays: bigint): { projected: bigint; single?: bigint } {
  if (elapsedDays < periodDays && largestSingle > 0n && 3n * largestSingle >= 2n * spent) {
    return { projected: largestSingle + roundDiv((spent - largestSingle) * periodDays, elapsedDays), single: largestSingle };
  }
  return { projected: roundDiv(spent * periodDays, elapsedDays) };
}

export interface StatusWindow {
  periodStart: string;
  periodEnd: string;
}

/** The reported period for as_of: the rule's period containing it, cut to the budget's dates. */
export function statusWindow(b: BudgetRecord, asOf: string): StatusWindow {
  const rule: PeriodRule = { unit: b.period, interval: b.interval, anchor: b.anchorDate };
  const p = periodContaining(rule, asOf);
  return {
    periodStart: p.start < b.startDate ? b.startDate : p.start,
    periodEnd: b.endDate !== null && b.endDate < p.end ? b.endDate : p.end,
  };
}

/** The days whose spending a status needs: from start_date with rollover, else from the period's start. */
function spendingRange(b: BudgetRecord, asOf: string): { from: string; to: string } {
  return { from: b.rollover === "carry_unspent" ? b.startDate : statusWindow(b, asOf).periodStart, to: asOf };
}

export interface StatusRequest {
  budget: BudgetRecord;
  /** Must lie between the budget's start and end dates (callers check). */
  asOf: string;
}

/**
 * The statuses of several budgets of one user, each on its own `asOf`, in the order asked: all their
 * spending comes from one statement (dailySpendingBatch), whatever the number of budgets.
 */
export async function computeBudgetStatuses(db: Knex, userId: string, requests: readonly StatusRequest[]): Promise<BudgetStatus[]> {
  if (requests.length === 0) return [];
  const days = await dailySpendingBatch(
    db,
    userId,
    requests.map(({ budget: b, asOf }) => ({
      scope: { currency: b.currency, categories: b.categories, tags: b.tags, walletIds: b.walletIds },
      ...spendingRange(b, asOf),
    })),
  );
  return requests.map(({ budget, asOf }, i) => statusFromDays(budget, asOf, days[i] as DailySpending[]));
}

/** The budget's status on `asOf`, which must lie between its start and end dates (callers check). */
export async function computeBudgetStatus(db: Knex, b: BudgetRecord, asOf: string): Promise<BudgetStatus> {
  return (await computeBudgetStatuses(db, b.userId, [{ budget: b, asOf }]))[0] as BudgetStatus;
}

/** The status from the in-scope spending per day over spendingRange(b, asOf), oldest first. */
export function statusFromDays(b: BudgetRecord, asOf: string, days: readonly DailySpending[]): BudgetStatus {
  const rule: PeriodRule = { unit: b.period, interval: b.interval, anchor: b.anchorDate };
  const current = periodContaining(rule, asOf);
  const window = statusWindow(b, asOf);
  const rollover = b.rollover === "carry_unspent";

  let i = 0;
  let carried = 0n;
  if (rollover) {
    const first = periodContaining(rule, b.startDate);
    for (let k = first.index; k < current.index; k++) {
      const end = plusDays(periodStart(rule, k + 1), -1);
      let spentK = 0n;
      while (i < days.length && (days[i] as DailySpending).date <= end) {
        spentK += (days[i] as DailySpending).spent;
        i++;
      }
      const left = b.amountMinor + carried - spentK;
      carried = left > 0n ? left : 0n;
    }
  }
  let spent = 0n;
  let refunds = 0n;
  let count = 0;
  let largestSingle = 0n; // the largest day that holds exactly one in-scope expense
  for (; i < days.length; i++) {
    const d = days[i] as DailySpending;
    if (d.date < window.periodStart) continue;
    spent += d.spent;
    refunds += d.refunds;
    count += d.count;
    if (d.count === 1 && d.spent > largestSingle) largestSingle = d.spent;
  }
  if (spent < 0n) spent = 0n; // only if the ledger held positive "expenses"; never report negative spending

  const base = b.amountMinor + carried; // > 0: the limit is positive and the carry never negative
  const periodDays = BigInt(dayDiff(window.periodStart, window.periodEnd) + 1);
  const elapsedDays = BigInt(dayDiff(window.periodStart, asOf) + 1);
  // Refunds may bring spending to zero: nothing spent projects nothing.
  const projection = spent === 0n ? { projected: 0n } : projectionOf(spent, largestSingle, elapsedDays, periodDays);
  return {
    budget_id: b.id,
    name: b.name,
    period_start: window.periodStart,
    period_end: window.periodEnd,
    limit: toMoney(b.amountMinor, b.currency),
    spent: toMoney(spent, b.currency),
    remaining: toMoney(base - spent, b.currency),
    carried_in: toMoney(carried, b.currency),
    utilization: Number(roundDiv(spent * 10_000n, base)) / 10_000,
    percent_elapsed: Number(roundDiv(elapsedDays * 10_000n, periodDays)) / 100,
    pace: paceOf(projection.projected, base, elapsedDays, periodDays),
    projected_spend: toMoney(projection.projected, b.currency),
    ...(projection.single === undefined ? {} : { single_charge: toMoney(projection.single, b.currency) }),
    transaction_count: count,
    over_budget: spent > base,
    alert: 100n * spent >= BigInt(b.alertThreshold) * base,
    ...(refunds !== 0n ? { refunds: toMoney(refunds, b.currency) } : {}),
  };
}
