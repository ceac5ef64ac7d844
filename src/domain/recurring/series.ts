/**
 * Regular payments as a person plans with them (docs/decisions.md#regular-payments): the recurring
 * charges detect.ts finds, each with a kind, a confidence, its current price, its price changes and its
 * missed payments, and the active bill reminders no charge matches yet (planned). Its expected dates
 * (`seriesDates`) are the one source of both list_recurring's 12-month cost and the forecast's events,
 * so that the two always agree.
 *
 * - Kind: income; with fixed amounts (equal, apart from a price change now and then, never back to an
 *   earlier price) a bill when it is housing, utilities, insurance, a loan or a tax (billLike, by its
 *   payee or its reminder's name or category), else a subscription; otherwise a bill when a reminder
 *   covers it or it comes on a steady day (a day-of-month spread of at most 3: a debit moved past a
 *   weekend or a holiday) with no visits in between; otherwise regular spending (a shop visited often
 *   with varying amounts), which has its own total and is left out of the forecast unless asked.
 * - Price: the latest charge, or the covering reminder's fixed amount when the reminder was written
 *   after that charge (a raised price is typed into the reminder before the bank shows it).
 * - A planned series (a reminder with no charge yet) costs its fixed amount, or its highest amount for
 *   a variable bill: a plan should not promise what a high bill would take back.
 */
import { plusDays, toEpochDay } from "../../calendar/days.js";
import { occurrencesBetween } from "../bills/schedule.js";
import { detectRecurring, type Interval, nextExpected, payeeKey, type Recurring, type Status } from "./detect.js";
import { chargesOfCorrections, type Decision, type SeriesDecision, seriesKey } from "./decisions.js";
import type { Charge, CoveringBill } from "./store.js";

export type Kind = "subscription" | "bill" | "income" | "regular_spending";
export type Confidence = "high" | "medium" | "low";

export interface PriceChange {
  date: string;
  fromMinor: bigint;
  toMinor: bigint;
}

export interface Series {
  payee: string;
  key: string;
  /** The stable key decisions are kept by (decisions.ts): direction, currency and folded payee. */
  seriesKey: string;
  /** The person's decision on it (decisions.ts), or null while they have made none. */
  decision: Decision | null;
  direction: "expense" | "income";
  currency: string;
  walletId: string | null;
  interval: Interval;
  kind: Kind;
  confidence: Confidence;
  typicalMinor: bigint;
  priceMinor: bigint;
  priceChanges: PriceChange[];
  missed: string[];
  status: Status | "planned";
  occurrences: number;
  lastDate: string | null;
  nextDate: string;
  bill: CoveringBill | null;
  /** Detected series only: how many days late a charge may come before it counts as missed. */
  grace: number;
}

/** The schedules a planned series can be named by (list_recurring's intervals). */
const PLANNED_INTERVALS: Readonly<Record<string, Interval>> = {
  weekly: "weekly",
  biweekly: "biweekly",
  monthly: "monthly",
  quarterly: "quarterly",
  yearly: "yearly",
};

/** Fixed amounts: each price held for a while, at most one change per two charges, never back to an old one. */
function isFixed(amounts: readonly bigint[]): boolean {
  const blocks: bigint[] = [];
  for (const a of amounts) if (blocks[blocks.length - 1] !== a) blocks.push(a);
  return new Set(blocks).size === blocks.length && blocks.length <= 1 + Math.floor(amounts.length / 2);
}

/** A steady due day: weekly and every two weeks by their interval, longer ones by the day of the month. */
function steadyDay(r: Recurring): boolean {
  if (r.interval === "weekly" || r.interval === "biweekly") {
    const step = r.interval === "weekly" ? 7 : 14;
    return r.runDays.every((d, i) => i === 0 || toEpochDay(d) - toEpochDay(r.runDays[i - 1]!) === step);
  }
  const dom = r.runDays.map((d) => Number(d.slice(8, 10)));
  return Math.max(...dom) - Math.min(...dom) <= 3;
}

/**
 * What a person calls a bill rather than a subscription, a fixed amount too: housing, utilities,
 * insurance, loans and taxes, named in the payee or in the covering reminder's name or category
 * (English and German, the languages of the shipped demo and statements; docs/decisions.md#issue-49-choices).
 */
const BILL_WORDS = new RegExp(
  [
    // whole words (a prefix would catch "taxi", "rental car"; "gas" and "power" are fuel and gyms as often as utilities)
    "\\b(?:rent|miete|housing|mortgage|hypothek|water|wasser|strom|energy|energie|heating|heizung|internet|broadband|phone|loan|kredit|darlehen|tax|council|hoa|rundfunk)\\b",
    // word starts, and the tails of German compounds (Hausratversicherung, Warmmiete)
    "\\b(?:utilit|electric|insuranc|hausverwaltung|stadtwerke|nebenkosten|telekom|steuer)",
    "(?:versicherung|miete)\\b",
  ].join("|"),
  "iu",
);
export const billLike = (...names: readonly (string | null | undefined)[]): boolean => names.some((n) => typeof n === "string" && BILL_WORDS.test(n));

function kindOf(r: Recurring, bill: CoveringBill | null): Kind {
  if (r.direction === "income") return "income";
  if (isFixed(r.runAmounts)) return billLike(r.payee, bill?.name, bill?.category) ? "bill" : "subscription";
  if (bill !== null || (!r.extraVisits && steadyDay(r))) return "bill";
  return "regular_spending";
}

function confidenceOf(kind: Kind, status: Status, covered: boolean, occurrences: number): Confidence {
  if (kind === "regular_spending" || status !== "active") return "low";
  return covered || occurrences >= 4 ? "high" : "medium";
}

/** The expected dates up to today that passed their grace with no charge (at most three). */
function missedDates(r: Recurring, today: string): string[] {
  const out: string[] = [];
  for (let k = 1; k <= 3; k++) {
    const due = nextExpected(r.lastDate, r.interval, k);
    if (toEpochDay(due) + r.grace >= toEpochDay(today)) break;
    out.push(due);
  }
  return out;
}

function covering(r: Recurring, bills: readonly CoveringBill[]): CoveringBill | null {
  return bills.find((b) => b.currency === r.currency && [b.payee, b.name].some((n) => n !== null && payeeKey(n) === r.key)) ?? null;
}

function fromCharges(r: Recurring, bills: readonly CoveringBill[], today: string): Series {
  const bill = covering(r, bills);
  const kind = kindOf(r, bill);
  const latest = r.runAmounts[r.runAmounts.length - 1]!;
  const priceChanges: PriceChange[] = [];
  if (isFixed(r.runAmounts)) {
    r.runAmounts.forEach((a, i) => {
      if (i > 0 && a !== r.runAmounts[i - 1]) priceChanges.push({ date: r.runDays[i]!, fromMinor: r.runAmounts[i - 1]!, toMinor: a });
    });
  }
  let price = latest;
  if (bill?.amountMinor != null && bill.updatedDay > r.lastDate && bill.amountMinor !== latest) {
    price = bill.amountMinor;
    priceChanges.push({ date: bill.updatedDay, fromMinor: latest, toMinor: price });
  }
  return {
    payee: r.payee,
    key: r.key,
    seriesKey: seriesKey(r.direction, r.currency, r.key),
    decision: null,
    direction: r.direction as "expense" | "income",
    currency: r.currency,
    walletId: r.walletId,
    interval: r.interval,
    kind,
    confidence: confidenceOf(kind, r.status, bill !== null, r.occurrences),
    typicalMinor: r.typicalMinor,
    priceMinor: price,
    priceChanges,
    missed: missedDates(r, today),
    status: r.status,
    occurrences: r.occurrences,
    lastDate: r.lastDate,
    nextDate: r.nextDate,
    bill,
    grace: r.grace,
  };
}

function planned(b: CoveringBill, today: string): Series | undefined {
  const interval = b.interval === 1 ? PLANNED_INTERVALS[b.frequency] : undefined;
  const price = b.amountMinor ?? b.amountMaxMinor;
  const next = occurrencesBetween(b.rrule, b.startDate, today, plusDays(today, YEAR_DAYS - 1), 1)[0];
  if (!interval || price === null || next === undefined) return undefined;
  const payee = b.payee ?? b.name;
  return {
    payee,
    key: payeeKey(payee),
    seriesKey: seriesKey("expense", b.currency, payeeKey(payee)),
    decision: null,
    direction: "expense",
    currency: b.currency,
    walletId: b.walletId,
    interval,
    kind: b.amountMinor === null || billLike(payee, b.name, b.category) ? "bill" : "subscription",
    confidence: "high",
    typicalMinor: price,
    priceMinor: price,
    priceChanges: [],
    missed: [],
    status: "planned",
    occurrences: 0,
    lastDate: null,
    nextDate: next,
    bill: b,
    grace: 0,
  };
}

/**
 * The 12 months a yearly cost covers: the 365 days after today (today's charges are already in the
 * balance a forecast starts from; a year from today is the same day of the month a year on).
 */
export const YEAR_DAYS = 365;

/**
 * The user's regular payments as of `today`: detected ones (costliest first, as detect.ts orders them,
 * regular spending after the rest), then the planned ones in reminder order, each with the person's
 * decision (decisions.ts): a correction's charges alone are detected, its payee shown, and a confirmed or
 * corrected series has confidence high. Dismissed series are kept in the answer (marked) so that a
 * forecast knows their reminders are dismissed too; every reader leaves them out.
 */
export function regularPayments(
  charges: readonly Charge[],
  bills: readonly CoveringBill[],
  today: string,
  decisions: readonly SeriesDecision[] = [],
): Series[] {
  const found = detectRecurring(chargesOfCorrections(charges, decisions), today).map((r) => fromCharges(r, bills, today));
  const used = new Set(found.flatMap((s) => (s.bill ? [s.bill.id] : [])));
  const plans = bills.filter((b) => !used.has(b.id)).flatMap((b) => planned(b, today) ?? []);
  const all = [...found.filter((s) => s.kind !== "regular_spending"), ...plans, ...found.filter((s) => s.kind === "regular_spending")];
  if (decisions.length === 0) return all;
  const byKey = new Map(decisions.map((d) => [d.key, d]));
  for (const s of all) {
    const d = byKey.get(s.seriesKey);
    if (!d) continue;
    s.decision = d.decision;
    if (d.decision !== "dismissed") s.confidence = "high";
    if (d.payee !== null) s.payee = d.payee;
  }
  return all;
}

/**
 * The days from `from` to `to` (inclusive) a series is expected to charge: a reminder's due dates when a
 * reminder covers or plans it, else its interval stepped from the last charge. An expected date that
 * passed but is still within its grace is expected on `from` (tomorrow, in a forecast) (the charge may come any day); one past its
 * grace is missed and expected no more. An ended series expects nothing.
 */
export function seriesDates(s: Series, from: string, to: string): string[] {
  if (s.status === "ended") return [];
  if (s.bill) return occurrencesBetween(s.bill.rrule, s.bill.startDate, from, to, 10_000);
  const out: string[] = [];
  const fromDay = toEpochDay(from);
  const toDay = toEpochDay(to);
  for (let k = 1; ; k++) {
    const due = nextExpected(s.lastDate!, s.interval, k);
    const day = toEpochDay(due);
    if (day > toDay) break;
    if (day >= fromDay) out.push(due);
    else if (day + s.grace >= fromDay && out.length === 0) out.push(from);
  }
  return out;
}
