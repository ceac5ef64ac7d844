/**
 * Recurring charges and income found in the ledger (docs/decisions.md#recurring-detection): a payee's
 * charges in one currency and direction recur when their newest run has one regular interval and a
 * stable or slowly changing amount. Pure functions of the charges and "today".
 *
 * - Payee: folded (case, spacing, a trailing reference number like "#1234" or "12/2026"), so "NETFLIX"
 *   and "Netflix " are one payee; charges on the same day are one charge (their sum).
 * - Interval: every gap of the newest run lies in the interval's window (monthly 26–35 days: month
 *   lengths and weekend shifts). The run needs 4 charges for weekly and every two weeks (a shop visited
 *   often hits 7-day gaps by chance), 3 for monthly, 2 for quarterly and yearly.
 * - Amount: the largest charge of the run is at most twice the smallest (a utility bill varies, a
 *   price rises); a run of two (quarterly, yearly) within 25%.
 * - Status: active until the next expected date plus a grace, late after it, ended once a second
 *   expected charge is missed too.
 */
import { plusDays, plusMonthsClamped, toEpochDay } from "../../calendar/days.js";
import type { Charge } from "./store.js";

export type Interval = "weekly" | "biweekly" | "monthly" | "quarterly" | "yearly";
export type Status = "active" | "late" | "ended";

interface IntervalRule {
  name: Interval;
  min: number;
  max: number;
  /** Charges a run needs. */
  runs: number;
  /** Days after the expected date before a charge counts as missed. */
  grace: number;
  /** Charges per year, for monthly and yearly cost. */
  perYear: number;
}

const RULES: readonly IntervalRule[] = [
  { name: "weekly", min: 6, max: 8, runs: 4, grace: 2, perYear: 52 },
  { name: "biweekly", min: 12, max: 16, runs: 4, grace: 3, perYear: 26 },
  { name: "monthly", min: 26, max: 35, runs: 3, grace: 5, perYear: 12 },
  { name: "quarterly", min: 84, max: 98, runs: 2, grace: 10, perYear: 4 },
  { name: "yearly", min: 350, max: 380, runs: 2, grace: 20, perYear: 1 },
];

export interface Recurring {
  payee: string;
  key: string;
  direction: string;
  currency: string;
  walletId: string;
  interval: Interval;
  typicalMinor: bigint;
  monthlyMinor: bigint;
  yearlyMinor: bigint;
  occurrences: number;
  lastDate: string;
  nextDate: string;
  status: Status;
  /** The run's days (oldest first) and the charge of each day (positive). */
  runDays: string[];
  runAmounts: bigint[];
  /** Days after an expected date before its charge counts as missed. */
  grace: number;
  /** Some of the payee's kept charges came closer together than the interval allows (a shop visited often). */
  extraVisits: boolean;
}

/** The key charges of one payee share: folded case and spacing, without a trailing reference number. */
export function payeeKey(payee: string): string {
  const folded = payee.normalize("NFC").toLowerCase().replace(/\s+/gu, " ").trim();
  const key = withoutReference(folded).trim();
  return key.length > 0 ? key : folded;
}

const REFERENCE_TAIL = /[0-9\s/.-]/;
const REFERENCE_LEAD = /[\s*#/.-]/;

/**
 * The payee without a trailing reference number: what /[\s*#/.-]*[0-9][0-9\s/.-]*$/ would cut, found by
 * walking back from the end once. That pattern, unanchored, is retried from every character of a long
 * run of digits and spaces (quadratic; issue 41); this is linear. The tail is the last run of digits,
 * spaces, "/", "." and "-" holding a digit, from its first digit, with the marks before that digit.
 */
function withoutReference(s: string): string {
  let tail = s.length;
  while (tail > 0 && REFERENCE_TAIL.test(s[tail - 1]!)) tail--;
  let digit = tail;
  while (digit < s.length && !(s[digit]! >= "0" && s[digit]! <= "9")) digit++;
  if (digit === s.length) return s;
  let cut = digit;
  while (cut > 0 && REFERENCE_LEAD.test(s[cut - 1]!)) cut--;
  return s.slice(0, cut);
}

export function nextExpected(last: string, interval: Interval, steps: number): string {
  switch (interval) {
    case "weekly":
      return plusDays(last, 7 * steps);
    case "biweekly":
      return plusDays(last, 14 * steps);
    case "monthly":
      return plusMonthsClamped(last, steps);
    case "quarterly":
      return plusMonthsClamped(last, 3 * steps);
    case "yearly":
      return plusMonthsClamped(last, 12 * steps);
  }
}

function median(values: bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** A run (oldest first) of days and amounts; the newest run matching a rule, or undefined. */
function regularRun(days: string[], amounts: bigint[]): { rule: IntervalRule; from: number } | undefined {
  if (days.length < 2) return undefined;
  const lastGap = toEpochDay(days[days.length - 1]!) - toEpochDay(days[days.length - 2]!);
  const rule = RULES.find((r) => lastGap >= r.min && lastGap <= r.max);
  if (!rule) return undefined;
  let from = days.length - 2;
  while (from > 0) {
    const gap = toEpochDay(days[from]!) - toEpochDay(days[from - 1]!);
    if (gap < rule.min || gap > rule.max) break;
    from--;
  }
  const run = amounts.slice(from);
  if (run.length < rule.runs) return undefined;
  const lo = run.reduce((a, b) => (b < a ? b : a));
  const hi = run.reduce((a, b) => (b > a ? b : a));
  if (lo <= 0n) return undefined;
  if (run.length === 2 ? hi * 4n > lo * 5n : hi > lo * 2n) return undefined;
  return { rule, from };
}

/** Division rounding half away from zero. */
function divRound(n: bigint, d: bigint): bigint {
  return (n * 2n + d) / (2n * d);
}

/** The recurring charges among the newest charges of each payee, as of `today`, the costliest first. */
export function detectRecurring(charges: readonly Charge[], today: string): Recurring[] {
  const groups = new Map<string, Charge[]>();
  // A payee's rows share their spelling: fold each spelling once.
  const keys = new Map<string, string>();
  for (const c of charges) {
    let folded = keys.get(c.payee);
    if (folded === undefined) keys.set(c.payee, (folded = payeeKey(c.payee)));
    const key = `${folded}\u0000${c.direction}\u0000${c.currency}`;
    const list = groups.get(key) ?? [];
    list.push(c);
    groups.set(key, list);
  }
  const found: Recurring[] = [];
  for (const list of groups.values()) {
    // One charge per day (oldest first), amounts as positive magnitudes.
    const byDay = new Map<string, bigint>();
    for (const c of list) byDay.set(c.date, (byDay.get(c.date) ?? 0n) + (c.amountMinor < 0n ? -c.amountMinor : c.amountMinor));
    const days = [...byDay.keys()].sort();
    const amounts = days.map((d) => byDay.get(d)!);
    const run = regularRun(days, amounts);
    if (!run) continue;
    const newest = list.reduce((a, b) => (b.date > a.date ? b : a));
    const typical = median(amounts.slice(run.from).slice(-3));
    const last = days[days.length - 1]!;
    const next = nextExpected(last, run.rule.name, 1);
    const secondMissed = nextExpected(last, run.rule.name, 2);
    const status: Status =
      toEpochDay(today) > toEpochDay(secondMissed) + run.rule.grace ? "ended" : toEpochDay(today) > toEpochDay(next) + run.rule.grace ? "late" : "active";
    const yearly = typical * BigInt(run.rule.perYear);
    found.push({
      payee: newest.payee,
      key: payeeKey(newest.payee),
      direction: newest.direction,
      currency: newest.currency,
      walletId: newest.walletId,
      interval: run.rule.name,
      typicalMinor: typical,
      monthlyMinor: divRound(yearly, 12n),
      yearlyMinor: yearly,
      occurrences: days.length - run.from,
      lastDate: last,
      nextDate: next,
      status,
      runDays: days.slice(run.from),
      runAmounts: amounts.slice(run.from),
      grace: run.rule.grace,
      extraVisits: days.some((d, i) => i > 0 && toEpochDay(d) - toEpochDay(days[i - 1]!) < run.rule.min),
    });
  }
  return found.sort((a, b) => (a.yearlyMinor === b.yearlyMinor ? (a.key < b.key ? -1 : 1) : a.yearlyMinor > b.yearlyMinor ? -1 : 1));
}
