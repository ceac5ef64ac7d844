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
import { dayDiff, formatDayNumber, MS_PER_DAY, plusDays, plusMonthsClamped, toEpochDay } from "../../calendar/days.js";

// The day arithmetic is the calendar's (src/calendar/days.ts); plusDays and dayDiff stay importable here.
export { dayDiff, plusDays };

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
    return formatDayNumber(n - ((jsDay + 6) % 7));
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
