/**
 * How a budget stands on a day (as_of): the period that contains it, what was spent in scope, what is
 * left, the carry-in from earlier periods, and the pace. Spending comes from SQL aggregation over
 * `transactions` (SUM and COUNT per day in scope); only the per-day sums reach this process, which
 * buckets them into periods for the rollover chain.
 *
 * Rules (openrpc.json, BudgetStatus and Budget), with the choices made where the contract is silent:
 * - In scope: direction 'expense', the budget's currency, and every non-empty scope list matched —
 *   category one of `categories`, at least one tag of `tags`, wallet one of `wallet_ids`. Categories
 *   and tags compare case-insensitively through the ledger's folded forms (category_key, the folded
 *   tags of transaction_tags; foldKey), so both engines agree beyond ASCII. Income and transfers
 *   never count. spent = −SUM(amount_minor).
 * - The reported period is the one containing as_of, cut to the budget's start_date and end_date
 *   (a budget that starts mid-month has a short first period with the full limit).
 * - spent and transaction_count cover period_start through as_of: expenses dated after as_of (already
 *   entered for later days) are not spent yet, and the projection extrapolates what has been spent.
 * - carry_unspent: each earlier period, from the one containing start_date, hands on
 *   max(0, limit + carried_in − spent) to the next; overspending is not carried. Earlier periods are
 *   evaluated with the budget's current limit and scope (no history of definitions is kept).
 * - utilization = spent / (limit + carried_in), rounded to 4 decimals; percent_elapsed = elapsed days
 *   (as_of included) / period days × 100, rounded to 2 decimals; pace compares the two exactly (not
 *   the rounded figures) with a 5-point band; projected_spend = spent × period days / elapsed days,
 *   rounded half up to the minor unit; alert is utilization × 100 ≥ alert_threshold, exactly.
 */
import type { Knex } from "knex";
import type { BudgetStatus, Pace } from "../../../generated/types.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { foldKey } from "../transactions/text.js";
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
  /** Positive magnitude of the day's in-scope expenses, in minor units. */
  spent: bigint;
  count: number;
}

/**
 * SUM and COUNT of the in-scope expenses of each day from `from` to `to` (inclusive), oldest first.
 * One query; days without spending are absent.
 */
export async function dailySpending(db: Knex, userId: string, scope: Scope, from: string, to: string): Promise<DailySpending[]> {
  if (to < from) return [];
  const q = db("transactions as t")
    .select("t.date")
    .sum({ total: "t.amount_minor" })
    .count({ n: "*" })
    .where("t.user_id", userId)
    .andWhere("t.direction", "expense")
    .andWhere("t.currency", scope.currency)
    .andWhere("t.date", ">=", from)
    .andWhere("t.date", "<=", to)
    .groupBy("t.date")
    .orderBy("t.date");
  if (scope.categories.length > 0) {
    // category_key is the category folded by the ledger (foldKey); fold the budget's list the same way.
    q.whereIn("t.category_key", [...new Set(scope.categories.map(foldKey))]);
  }
  if (scope.walletIds.length > 0) q.whereIn("t.wallet_id", [...scope.walletIds]);
  if (scope.tags.length > 0) {
    // transaction_tags holds tags folded by the ledger (normalizeTags): compare folded.
    const tags = [...new Set(scope.tags.map(foldKey))];
    q.whereExists(function () {
      this.select(db.raw("1")).from("transaction_tags as g").whereRaw("g.transaction_id = t.id").whereIn("g.tag", tags);
    });
  }
  const rows = (await q) as { date: string; total: MinorLike | null; n: MinorLike }[];
  return rows.map((r) => ({ date: String(r.date), spent: -toMinorBigInt(r.total ?? 0), count: Number(r.n) }));
}

/** n / d rounded half up, for n ≥ 0 and d > 0. */
function roundDiv(n: bigint, d: bigint): bigint {
  return (2n * n + d) / (2n * d);
}

function paceOf(spent: bigint, base: bigint, elapsedDays: bigint, periodDays: bigint): Pace {
  // utilization% = 100·spent/base, elapsed% = 100·e/d; compared exactly by cross-multiplying.
  const lhs = 100n * spent * periodDays;
  if (lhs > (100n * elapsedDays + 5n * periodDays) * base) return "over";
  if (lhs < (100n * elapsedDays - 5n * periodDays) * base) return "under";
  return "on_track";
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

/**
 * The budget's status on `asOf`, which must lie between its start and end dates (callers check).
 * One aggregation query (from start_date with rollover, else from the period's start).
 */
export async function computeBudgetStatus(db: Knex, b: BudgetRecord, asOf: string): Promise<BudgetStatus> {
  const rule: PeriodRule = { unit: b.period, interval: b.interval, anchor: b.anchorDate };
  const current = periodContaining(rule, asOf);
  const window = statusWindow(b, asOf);
  const rollover = b.rollover === "carry_unspent";
  const from = rollover ? b.startDate : window.periodStart;
  const days = await dailySpending(db, b.userId, { currency: b.currency, categories: b.categories, tags: b.tags, walletIds: b.walletIds }, from, asOf);

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
  let count = 0;
  for (; i < days.length; i++) {
    const d = days[i] as DailySpending;
    if (d.date < window.periodStart) continue;
    spent += d.spent;
    count += d.count;
  }
  if (spent < 0n) spent = 0n; // only if the ledger held positive "expenses"; never report negative spending

  const base = b.amountMinor + carried; // > 0: the limit is positive and the carry never negative
  const periodDays = BigInt(dayDiff(window.periodStart, window.periodEnd) + 1);
  const elapsedDays = BigInt(dayDiff(window.periodStart, asOf) + 1);
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
    pace: paceOf(spent, base, elapsedDays, periodDays),
    projected_spend: toMoney(roundDiv(spent * periodDays, elapsedDays), b.currency),
    transaction_count: count,
    over_budget: spent > base,
    alert: 100n * spent >= BigInt(b.alertThreshold) * base,
  };
}
