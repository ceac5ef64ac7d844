/**
 * list_recurring: the recurring charges and income of the user's ledger (detect.ts over store.ts's
 * newest charges per payee), each with the bill reminder that covers it, and totals per currency and
 * direction of the ones still running (active or late). One statement (store.ts) reads both.
 */
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import type { Knex } from "knex";
import { toMoney, type Money } from "../../money/amount.js";
import { detectRecurring, payeeKey, type Recurring } from "./detect.js";
import { recurringInputs } from "./store.js";

export interface RecurringItem {
  payee: string;
  direction: "expense" | "income";
  interval: Recurring["interval"];
  typical_amount: Money;
  monthly_cost: Money;
  yearly_cost: Money;
  occurrences: number;
  last_date: string;
  next_date: string;
  status: Recurring["status"];
  wallet_id: string;
  bill_reminder_id: string | null;
}

export interface RecurringTotal {
  currency: string;
  direction: "expense" | "income";
  monthly: Money;
  yearly: Money;
}

export const TO_BILL_REMINDER =
  "To be reminded of one without bill_reminder_id: create_bill_reminder with name and payee its payee, amount and currency its typical_amount's, its wallet_id, and schedule {frequency: its interval, start_date: its next_date}.";

/** list_recurring: as of the caller's today. */
export async function listRecurringOf(ctx: DomainContext, params: { include_ended?: boolean }) {
  return listRecurring(ctx.db, ctx.caller.userId, todayOf(ctx), params.include_ended === true);
}

export async function listRecurring(
  db: Knex,
  userId: string,
  today: string,
  includeEnded: boolean,
): Promise<{ as_of: string; recurring: RecurringItem[]; totals: RecurringTotal[]; next_step: string }> {
  const { charges, bills } = await recurringInputs(db, userId);
  const found = detectRecurring(charges, today).filter((r) => includeEnded || r.status !== "ended");
  const covering = (r: Recurring) =>
    bills.find((b) => b.currency === r.currency && [b.payee, b.name].some((n) => n !== null && payeeKey(n) === r.key))?.id ?? null;

  const totals = new Map<string, { currency: string; direction: "expense" | "income"; monthly: bigint; yearly: bigint }>();
  for (const r of found) {
    if (r.status === "ended") continue;
    const key = `${r.currency} ${r.direction}`;
    const t = totals.get(key) ?? { currency: r.currency, direction: r.direction as "expense" | "income", monthly: 0n, yearly: 0n };
    t.monthly += r.monthlyMinor;
    t.yearly += r.yearlyMinor;
    totals.set(key, t);
  }
  return {
    as_of: today,
    recurring: found.map((r) => ({
      payee: r.payee,
      direction: r.direction as "expense" | "income",
      interval: r.interval,
      typical_amount: toMoney(r.typicalMinor, r.currency),
      monthly_cost: toMoney(r.monthlyMinor, r.currency),
      yearly_cost: toMoney(r.yearlyMinor, r.currency),
      occurrences: r.occurrences,
      last_date: r.lastDate,
      next_date: r.nextDate,
      status: r.status,
      wallet_id: r.walletId,
      bill_reminder_id: covering(r),
    })),
    totals: [...totals.values()]
      .sort((a, b) => (a.currency === b.currency ? (a.direction < b.direction ? -1 : 1) : a.currency < b.currency ? -1 : 1))
      .map((t) => ({ currency: t.currency, direction: t.direction, monthly: toMoney(t.monthly, t.currency), yearly: toMoney(t.yearly, t.currency) })),
    next_step: TO_BILL_REMINDER,
  };
}
