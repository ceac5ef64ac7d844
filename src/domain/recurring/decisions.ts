/**
 * The person's decisions on their regular payments (issue 38 item 1; docs/decisions.md#recurring-decisions),
 * kept in recurring_decisions per user and series key:
 *
 * - confirmed: the person says the series is real; it is shown with confidence high, and it is what the
 *   calendar feed carries when the person chose so on /account.
 * - dismissed: never listed, counted or forecast again (new charges of the payee change nothing), until
 *   the decision is undone or replaced.
 * - corrected: confirmed, with the payee it is shown as, and an amount range and a day-of-month window a
 *   charge must fall in to belong to it (a shop's one-off purchases next to its monthly plan): detection,
 *   and so the price and the cost, only see the charges that fit.
 *
 * A series key is "<direction>:<currency>:<folded payee>" (list_recurring's `series`): the same charges
 * keep the same key whatever their spelling, amounts or dates, so a decision outlives new charges.
 */
import { payeeKey } from "./detect.js";
import type { Charge, Decision, SeriesDecision } from "./store.js";

export type { Decision, SeriesDecision };

export const seriesKey = (direction: string, currency: string, folded: string) => `${direction}:${currency}:${folded}`;

/** The parts of a series key, or undefined when it is not one. */
export function parseSeriesKey(key: string): { direction: "expense" | "income"; currency: string; payee: string } | undefined {
  const m = /^(expense|income):([A-Z]{3}):(.+)$/su.exec(key);
  return m ? { direction: m[1] as "expense" | "income", currency: m[2]!, payee: m[3]! } : undefined;
}

/** A day of the month within a window; a window whose end is before its start wraps past the month's end (28 to 3). */
export function inDayWindow(day: number, from: number | null, to: number | null): boolean {
  const lo = from ?? 1;
  const hi = to ?? 31;
  return lo <= hi ? day >= lo && day <= hi : day >= lo || day <= hi;
}

/** Whether a charge may belong to a corrected series: its amount within the range, its day within the window. */
function fits(d: SeriesDecision, c: Charge): boolean {
  const amount = c.amountMinor < 0n ? -c.amountMinor : c.amountMinor;
  if (d.amountMinMinor !== null && amount < d.amountMinMinor) return false;
  if (d.amountMaxMinor !== null && amount > d.amountMaxMinor) return false;
  return inDayWindow(Number(c.date.slice(8, 10)), d.dayFrom, d.dayTo);
}

/** The charges less those a correction leaves out of its series. */
export function chargesOfCorrections(charges: readonly Charge[], decisions: readonly SeriesDecision[]): readonly Charge[] {
  const filters = new Map(
    decisions
      .filter((d) => d.decision === "corrected" && (d.amountMinMinor !== null || d.amountMaxMinor !== null || d.dayFrom !== null || d.dayTo !== null))
      .map((d) => [d.key, d]),
  );
  if (filters.size === 0) return charges;
  const folded = new Map<string, string>();
  return charges.filter((c) => {
    let k = folded.get(c.payee);
    if (k === undefined) folded.set(c.payee, (k = payeeKey(c.payee)));
    const d = filters.get(seriesKey(c.direction, c.currency, k));
    return d === undefined || fits(d, c);
  });
}
