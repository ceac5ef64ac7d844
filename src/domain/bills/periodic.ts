/**
 * Due dates of the RRULEs that toRRule writes, computed by arithmetic instead of by the `rrule`
 * package, so that a window's cost depends on the dates in it and not on the age of the bill.
 *
 * `rrule` has no way to start anywhere but DTSTART: it walks every period from the start date,
 * building each month's or year's day sets, to reach a window today (a daily bill 2.5 months old
 * cost ~10 ms per call). The rules toRRule writes are simple enough to index directly: each of
 * their periods (FREQ × INTERVAL) holds exactly one due date —
 * - DAILY: the day itself;
 * - WEEKLY with WKST = the start date's weekday and one BYDAY: the week is the 7 days beginning on
 *   a multiple of the interval after the start date, and holds that weekday once;
 * - MONTHLY/YEARLY (BYMONTH) with BYMONTHDAY = 1..28 or -1, or 28,…,d with BYSETPOS=-1 (the last
 *   existing day among them, i.e. min(d, days in the month)): every month has that day once —
 * so the k-th due date is the one of period p0 + k, where p0 is 1 when the first period's date
 * falls before the start date (only possible for monthly and yearly) and 0 otherwise. COUNT then
 * simply bounds k, and a window starts at the first period whose date can reach it.
 *
 * Anything else (hand-made or future rule shapes) returns null from parseSimpleRule and is
 * expanded by `rrule` as before; test/unit/schedule.test.ts compares both expansions on generated
 * schedules.
 */

import { daysInMonth, epochDayOf, LAST_EPOCH_DAY, MAX_YEAR, MIN_YEAR, MS_PER_DAY } from "../../calendar/days.js";
const RRULE_WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"] as const; // index = getUTCDay()

/** A rule as indexable periods. Days are counted as UTC-midnight milliseconds / MS_PER_DAY. */
export type SimpleRule =
  | {
      kind: "days";
      /** Day number of due date 0. */
      first: number;
      /** Days between due dates. */
      step: number;
      count: number | null;
      /** Day number of UNTIL (inclusive), or null. */
      until: number | null;
    }
  | {
      kind: "months";
      /** year × 12 + month (0-based) of period 0. */
      base: number;
      /** Months between periods. */
      step: number;
      /** 1..28 as is, -1 for the last day, 29..31 for min(day, days in the month). */
      day: number;
      /** 1 when period 0's date is before the start date (so due date k is in period k + 1). */
      skip: 0 | 1;
      count: number | null;
      until: number | null;
    };

const POSITIVE_INT_RE = /^[1-9][0-9]{0,8}$/;
const PART_RE = /^([A-Z]+)=([A-Z0-9,-]+)$/;
const DAY8_RE = /^([0-9]{4})([0-9]{2})([0-9]{2})$/;

/** The day number of the day `day` (1..28, -1, or 29..31 clamped) in month index `mi`. */
function monthDate(mi: number, day: number): number {
  const year = Math.floor(mi / 12);
  const month0 = mi - year * 12;
  let d = day;
  if (day === -1) d = daysInMonth(year, month0);
  else if (day > 28) d = Math.min(day, daysInMonth(year, month0));
  return epochDayOf(year, month0, d);
}

/** BYMONTHDAY (with BYSETPOS) as written by monthDayParts in schedule.ts, or null. */
function parseMonthDay(byMonthDay: string | undefined, bySetPos: string | undefined): number | null {
  if (byMonthDay === undefined) return null;
  if (bySetPos === undefined) {
    if (byMonthDay === "-1") return -1;
    if (!POSITIVE_INT_RE.test(byMonthDay)) return null;
    const d = Number(byMonthDay);
    return d <= 28 ? d : null;
  }
  if (bySetPos !== "-1") return null;
  for (const last of [29, 30, 31]) {
    const days: number[] = [];
    for (let d = 28; d <= last; d++) days.push(d);
    if (byMonthDay === days.join(",")) return last;
  }
  return null;
}

/**
 * The rule as periods when it is one of the shapes toRRule writes (see the module comment), for a
 * series starting on `startDay` (the Date at 00:00 UTC of the start date); otherwise null.
 */
export function parseSimpleRule(rrule: string, startDay: Date): SimpleRule | null {
  let text = rrule.trim();
  if (text.startsWith("RRULE:")) text = text.slice(6);
  const parts = new Map<string, string>();
  for (const part of text.split(";")) {
    const m = PART_RE.exec(part);
    if (!m || parts.has(m[1] as string)) return null;
    parts.set(m[1] as string, m[2] as string);
  }
  const take = (key: string): string | undefined => {
    const v = parts.get(key);
    parts.delete(key);
    return v;
  };
  const freq = take("FREQ");
  const intervalText = take("INTERVAL") ?? "1";
  const countText = take("COUNT");
  const untilText = take("UNTIL");
  if (!POSITIVE_INT_RE.test(intervalText)) return null;
  const interval = Number(intervalText);
  if (countText !== undefined && untilText !== undefined) return null;
  let count: number | null = null;
  if (countText !== undefined) {
    if (!POSITIVE_INT_RE.test(countText)) return null;
    count = Number(countText);
  }
  let until: number | null = null;
  if (untilText !== undefined) {
    const m = DAY8_RE.exec(untilText);
    if (!m) return null;
    const y = Number(m[1]);
    const mo = Number(m[2]) - 1;
    const d = Number(m[3]);
    if (y < MIN_YEAR || y > MAX_YEAR || mo < 0 || mo > 11 || d < 1 || d > daysInMonth(y, mo)) return null;
    until = epochDayOf(y, mo, d);
  }
  const start = startDay.getTime() / MS_PER_DAY;
  let rule: SimpleRule;
  switch (freq) {
    case "DAILY":
      rule = { kind: "days", first: start, step: interval, count, until };
      break;
    case "WEEKLY": {
      const startWeekday = startDay.getUTCDay();
      const byDay = RRULE_WEEKDAYS.indexOf(take("BYDAY") as (typeof RRULE_WEEKDAYS)[number]);
      // Another week start would make the first week straddle the start date; rrule handles that.
      if (byDay < 0 || take("WKST") !== RRULE_WEEKDAYS[startWeekday]) return null;
      rule = { kind: "days", first: start + ((byDay - startWeekday + 7) % 7), step: 7 * interval, count, until };
      break;
    }
    case "MONTHLY":
    case "YEARLY": {
      let month0 = startDay.getUTCMonth();
      if (freq === "YEARLY") {
        const byMonth = take("BYMONTH");
        if (byMonth === undefined || !POSITIVE_INT_RE.test(byMonth) || Number(byMonth) > 12) return null;
        month0 = Number(byMonth) - 1;
      }
      const day = parseMonthDay(take("BYMONTHDAY"), take("BYSETPOS"));
      if (day === null) return null;
      const base = startDay.getUTCFullYear() * 12 + month0;
      const skip = monthDate(base, day) < start ? 1 : 0;
      rule = { kind: "months", base, step: freq === "YEARLY" ? 12 * interval : interval, day, skip, count, until };
      break;
    }
    default:
      return null;
  }
  // Any part not consumed above (BYHOUR, DTSTART, TZID, …) is outside what this module knows.
  return parts.size === 0 ? rule : null;
}

/**
 * The due dates of `rule` from day `from` to day `to` (day numbers, inclusive), in order, at most
 * `limit`, as day numbers. Costs O(dates returned), whatever the distance from the start date.
 */
export function simpleOccurrences(rule: SimpleRule, from: number, to: number, limit: number): number[] {
  const out: number[] = [];
  const last = Math.min(to, rule.until ?? Infinity, LAST_EPOCH_DAY);
  if (rule.kind === "days") {
    let k = from > rule.first ? Math.ceil((from - rule.first) / rule.step) : 0;
    for (; out.length < limit && (rule.count === null || k < rule.count); k++) {
      const day = rule.first + k * rule.step;
      if (day > last) break;
      out.push(day);
    }
    return out;
  }
  // The first period whose month is not before the month of `from`; its date may still be before
  // `from` (a day earlier in that month), which the loop skips.
  const fromDate = new Date(from * MS_PER_DAY);
  const fromMonth = fromDate.getUTCFullYear() * 12 + fromDate.getUTCMonth();
  let p = Math.max(rule.skip, fromMonth > rule.base ? Math.ceil((fromMonth - rule.base) / rule.step) : 0);
  for (; out.length < limit && (rule.count === null || p - rule.skip < rule.count); p++) {
    const day = monthDate(rule.base + p * rule.step, rule.day);
    if (day > last) break;
    if (day >= from) out.push(day);
  }
  return out;
}
