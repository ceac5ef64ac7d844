/**
 * Budget periods on calendar days (YYYY-MM-DD). A budget's periods are `interval` units long
 * (week, month, quarter = 3 months, year = 12 months) and repeat forwards and backwards from its
 * anchor date: period k starts at anchor + k × interval units. Month arithmetic keeps the anchor's
 * day of the month and falls on the last day of shorter months (anchor 2026-01-31: periods start
 * Jan 31, Feb 28, Mar 31, Apr 30, ...), always counted from the anchor so a short month never
 * shifts later periods. A period ends the day before the next one starts.
 *
 * Days are handled as integers (days since 1970-01-01) and UTC-midnight Dates, so the host's
 * timezone never matters.
 */
import type { BudgetPeriod } from "../../../generated/types.js";

const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD day. */
export function toEpochDay(day: string): number {
  const y = Number(day.slice(0, 4));
  const m = Number(day.slice(5, 7));
  const d = Number(day.slice(8, 10));
  return Math.round(Date.UTC(y, m - 1, d) / MS_PER_DAY);
}

/** The YYYY-MM-DD of a day number. */
export function fromEpochDay(n: number): string {
  const dt = new Date(n * MS_PER_DAY);
  return `${String(dt.getUTCFullYear()).padStart(4, "0")}-${String(dt.getUTCMonth() + 1).padStart(2, "0")}-${String(dt.getUTCDate()).padStart(2, "0")}`;
}

export function plusDays(day: string, n: number): string {
  return fromEpochDay(toEpochDay(day) + n);
}

/** Days from `from` to `to` (positive when `to` is later). */
export function dayDiff(from: string, to: string): number {
  return toEpochDay(to) - toEpochDay(from);
}

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/** `day` plus `months` months, on the same day of the month or the last day of a shorter month. */
export function plusMonthsClamped(day: string, months: number): string {
  const y = Number(day.slice(0, 4));
  const m0 = Number(day.slice(5, 7)) - 1;
  const d = Number(day.slice(8, 10));
  const total = y * 12 + m0 + months;
  const ny = Math.floor(total / 12);
  const nm0 = total - ny * 12;
  const nd = Math.min(d, daysInMonth(ny, nm0));
  return `${String(ny).padStart(4, "0")}-${String(nm0 + 1).padStart(2, "0")}-${String(nd).padStart(2, "0")}`;
}

function monthsPerUnit(unit: BudgetPeriod): number | null {
  switch (unit) {
    case "week":
      return null;
    case "month":
      return 1;
    case "quarter":
      return 3;
    case "year":
      return 12;
  }
}

/**
 * The first day of the calendar period of `unit` that contains `day`: the Monday of its week, the
 * 1st of its month, the 1st of its quarter (January, April, July, October) or January 1st.
 */
export function calendarPeriodStart(unit: BudgetPeriod, day: string): string {
  if (unit === "week") {
    const n = toEpochDay(day);
    const jsDay = new Date(n * MS_PER_DAY).getUTCDay(); // 0 = Sunday
    return fromEpochDay(n - ((jsDay + 6) % 7));
  }
  const y = day.slice(0, 4);
  const m = Number(day.slice(5, 7));
  if (unit === "month") return `${y}-${day.slice(5, 7)}-01`;
  if (unit === "quarter") return `${y}-${String(m - ((m - 1) % 3)).padStart(2, "0")}-01`;
  return `${y}-01-01`;
}

export interface PeriodRule {
  unit: BudgetPeriod;
  interval: number;
  anchor: string;
}

/** The first day of period number k (period 0 starts on the anchor). */
export function periodStart(rule: PeriodRule, k: number): string {
  const mpu = monthsPerUnit(rule.unit);
  if (mpu === null) return plusDays(rule.anchor, 7 * rule.interval * k);
  return plusMonthsClamped(rule.anchor, mpu * rule.interval * k);
}

export interface Period {
  /** The period's number counted from the anchor (negative before it). */
  index: number;
  start: string;
  /** Inclusive. */
  end: string;
}

/** The period k of the rule. */
export function periodAt(rule: PeriodRule, k: number): Period {
  return { index: k, start: periodStart(rule, k), end: plusDays(periodStart(rule, k + 1), -1) };
}

/** The period of the rule that contains `day`. */
export function periodContaining(rule: PeriodRule, day: string): Period {
  const mpu = monthsPerUnit(rule.unit);
  let k: number;
  if (mpu === null) {
    k = Math.floor(dayDiff(rule.anchor, day) / (7 * rule.interval));
  } else {
    const months = (Number(day.slice(0, 4)) - Number(rule.anchor.slice(0, 4))) * 12 + (Number(day.slice(5, 7)) - Number(rule.anchor.slice(5, 7)));
    k = Math.floor(months / (mpu * rule.interval));
  }
  // The estimate is off by at most one when the day of the month is before the anchor's.
  while (periodStart(rule, k) > day) k -= 1;
  while (periodStart(rule, k + 1) <= day) k += 1;
  return periodAt(rule, k);
}
