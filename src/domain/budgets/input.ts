/**
 * Budget arguments → a checked record: defaults for the anchor and start dates, scope lists cleaned
 * and checked against the user's wallets, dates in order.
 */
import type { Knex } from "knex";
import type { BudgetPeriod } from "../../../generated/types.js";
import { invalidParams } from "../../errors.js";
import { assertSameCurrency } from "../shared/common.js";
import { getWalletRow } from "../wallets/store.js";
import { calendarPeriodStart, periodContaining } from "./periods.js";

export interface DateInput {
  period: BudgetPeriod;
  interval: number;
  anchorDate?: string;
  startDate?: string;
}

/**
 * The anchor and start dates of a new budget (contract: anchor_date defaults to the first day of the
 * calendar period containing start_date; start_date to the first day of the current period).
 */
export function defaultDates(input: DateInput, today: string): { anchorDate: string; startDate: string } {
  if (input.startDate !== undefined) {
    return { startDate: input.startDate, anchorDate: input.anchorDate ?? calendarPeriodStart(input.period, input.startDate) };
  }
  if (input.anchorDate !== undefined) {
    const current = periodContaining({ unit: input.period, interval: input.interval, anchor: input.anchorDate }, today);
    return { anchorDate: input.anchorDate, startDate: current.start };
  }
  const start = calendarPeriodStart(input.period, today);
  return { anchorDate: start, startDate: start };
}

/** Refuses an end date before the start date; `field` is the argument to blame. */
export function checkDateOrder(startDate: string, endDate: string | null, field: "start_date" | "end_date"): void {
  if (endDate !== null && endDate < startDate) {
    throw invalidParams(
      field,
      field === "end_date" ? `a date on or after start_date (${startDate})` : `a date on or before end_date (${endDate})`,
      `${field}: the budget would end (${endDate}) before it starts (${startDate}); end_date must not be before start_date.`,
    );
  }
}

/** Wallet ids that all belong to the user and hold the budget's currency. */
export async function checkWallets(db: Knex, userId: string, walletIds: readonly string[] | undefined, currency: string): Promise<string[]> {
  const out: string[] = [];
  for (const [i, id] of (walletIds ?? []).entries()) {
    const w = await getWalletRow(db, userId, id, `wallet_ids[${i}]`);
    assertSameCurrency(w, currency, `wallet_ids[${i}]`, "budget");
    if (!out.includes(w.id)) out.push(w.id);
  }
  return out;
}
