/**
 * list_recurring: the recurring charges and income of the user's ledger (detect.ts over store.ts's
 * newest charges per payee), each with the bill reminder that covers it, and totals per currency of the
 * ones not ended (active, late or planned): subscriptions and bills, regular spending, income (TOTAL_COUNTS). One statement (store.ts) reads both.
 */
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import type { Knex } from "knex";
import { toMoney, type Money } from "../../money/amount.js";
import { plusDays } from "../../calendar/days.js";
import { type Confidence, type Kind, regularPayments, type Series, seriesDates, YEAR_DAYS } from "./series.js";
import { recurringInputs } from "./store.js";

export interface RecurringItem {
  series: string;
  decision: "confirmed" | "corrected" | null;
  payee: string;
  direction: "expense" | "income";
  kind: Kind;
  interval: Series["interval"];
  confidence: Confidence;
  typical_amount: Money;
  price: Money;
  price_changes: { date: string; from: Money; to: Money }[];
  missed: string[];
  monthly_cost: Money;
  yearly_cost: Money;
  occurrences: number;
  last_date: string | null;
  next_date: string;
  status: Series["status"];
  wallet_id: string | null;
  bill_reminder_id: string | null;
}

/**
 * What a total adds up (said in the answer, so that a reader neither misses regular spending nor counts
 * it twice): the rows of these kinds that have not ended. Regular spending has its own total, never in another.
 */
export const TOTAL_COUNTS = {
  bills: "subscription and bill rows not ended",
  income: "income rows not ended",
  regular: "regular_spending rows not ended (in no other total)",
} as const;
type Counts = (typeof TOTAL_COUNTS)[keyof typeof TOTAL_COUNTS];

export interface RecurringTotal {
  currency: string;
  direction: "expense" | "income";
  counts: Counts;
  monthly: Money;
  yearly: Money;
}

export const TO_BILL_REMINDER =
  "To be reminded of one without bill_reminder_id: create_bill_reminder with name and payee its payee, amount and currency its typical_amount's, its wallet_id, and schedule {frequency: its interval, start_date: its next_date}.";

const ORDER: readonly Counts[] = [TOTAL_COUNTS.bills, TOTAL_COUNTS.regular, TOTAL_COUNTS.income];

/** list_recurring: as of the caller's today. */
export async function listRecurringOf(ctx: DomainContext, params: { include_ended?: boolean }) {
  return listRecurring(ctx.db, ctx.caller.userId, todayOf(ctx), params.include_ended === true);
}

/** What a series is expected to cost over the YEAR_DAYS days after today: its expected dates at its price. */
function yearlyCostMinor(s: Series, today: string): bigint {
  return BigInt(seriesDates(s, plusDays(today, 1), plusDays(today, YEAR_DAYS)).length) * s.priceMinor;
}

/** Division rounding half away from zero (costs are never negative). */
const divRound = (n: bigint, d: bigint) => (n * 2n + d) / (2n * d);

export async function listRecurring(
  db: Knex,
  userId: string,
  today: string,
  includeEnded: boolean,
): Promise<{ as_of: string; recurring: RecurringItem[]; totals: RecurringTotal[]; next_step: string }> {
  const { charges, bills, decisions } = await recurringInputs(db, userId);
  // A dismissed series never comes back (docs/decisions.md#recurring-decisions).
  const found = regularPayments(charges, bills, today, decisions).filter((r) => r.decision !== "dismissed" && (includeEnded || r.status !== "ended"));

  const totals = new Map<string, { currency: string; direction: "expense" | "income"; counts: Counts; monthly: bigint; yearly: bigint }>();
  const items = found.map((r) => {
    const yearly = yearlyCostMinor(r, today);
    const monthly = divRound(yearly, 12n);
    // Regular spending has its own total, never counted with subscriptions and bills.
    if (r.status !== "ended") {
      const counts = r.kind === "regular_spending" ? TOTAL_COUNTS.regular : r.direction === "income" ? TOTAL_COUNTS.income : TOTAL_COUNTS.bills;
      const key = `${r.currency} ${counts}`;
      const t = totals.get(key) ?? { currency: r.currency, direction: r.direction, counts, monthly: 0n, yearly: 0n };
      t.monthly += monthly;
      t.yearly += yearly;
      totals.set(key, t);
    }
    const money = (minor: bigint) => toMoney(minor, r.currency);
    return {
      series: r.seriesKey,
      decision: r.decision === "dismissed" ? null : r.decision,
      payee: r.payee,
      direction: r.direction,
      kind: r.kind,
      interval: r.interval,
      confidence: r.confidence,
      typical_amount: money(r.typicalMinor),
      price: money(r.priceMinor),
      price_changes: r.priceChanges.map((c) => ({ date: c.date, from: money(c.fromMinor), to: money(c.toMinor) })),
      missed: r.missed,
      monthly_cost: money(monthly),
      yearly_cost: money(yearly),
      occurrences: r.occurrences,
      last_date: r.lastDate,
      next_date: r.nextDate,
      status: r.status,
      wallet_id: r.walletId,
      bill_reminder_id: r.bill?.id ?? null,
    };
  });
  return {
    as_of: today,
    recurring: items,
    totals: [...totals.values()]
      .sort((a, b) => (a.currency === b.currency ? ORDER.indexOf(a.counts) - ORDER.indexOf(b.counts) : a.currency < b.currency ? -1 : 1))
      .map((t) => ({
        currency: t.currency,
        direction: t.direction,
        counts: t.counts,
        monthly: toMoney(t.monthly, t.currency),
        yearly: toMoney(t.yearly, t.currency),
      })),
    next_step: TO_BILL_REMINDER,
  };
}
