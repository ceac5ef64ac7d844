/**
 * Bill schedules: the simple shape a language model fills in at the tool boundary, its RFC 5545
 * RRULE form (what is stored, next to the start date) and the expansion into due dates: by
 * arithmetic (periodic.ts) for the rules toRRule writes, so that the cost does not grow with the
 * bill's age, and with the `rrule` package for any other rule.
 *
 * Dates are calendar days, `YYYY-MM-DD`. Internally each day is the Date at 00:00 UTC of that
 * day; only `getUTC*` and `Date.UTC` are used, so the host's timezone (TZ) never leaks in. "Today"
 * in the user's timezone is computed by the caller with `todayInTimeZone`.
 *
 * Rules (validateSchedule), decided here:
 * - `frequency` is one of once, daily, weekly, biweekly, monthly, quarterly, yearly.
 * - `start_date` (required) is the earliest possible due date. The first due date is the first
 *   date ON OR AFTER start_date that matches the rule (a monthly bill on day 31 starting
 *   2026-01-15 is first due 2026-01-31; one on day 15 starting 2026-01-20 is first due
 *   2026-02-15). For `once`, start_date is the due date.
 * - `interval` (default 1, integer 1..1000): every N days/weeks/months/years. `biweekly` with
 *   interval N means every 2N weeks, `quarterly` with interval N every 3N months. `once` accepts
 *   only interval 1.
 * - `weekday` (mon..sun): only for weekly and biweekly; defaults to the weekday of start_date.
 *   With an interval above 1 the weeks are counted from the week that begins on start_date, so
 *   "every 2 weeks on Monday from a Sunday" is first due the next day and then every 14 days.
 * - `day_of_month` (1..31, or -1 for the last day): only for monthly, quarterly and yearly;
 *   defaults to the day of start_date. A day 29, 30 or 31 falls on the last day of shorter
 *   months (day 31: Feb 28/29, Apr 30, ...), never skipped. For yearly the month is the month of
 *   start_date and day_of_month must exist in that month in some year (February 29 is allowed:
 *   it falls on February 28 in non-leap years; April 31 is refused).
 * - An end is optional: `end_date` (inclusive, not before start_date) or `count` (1..10000
 *   occurrences), not both. `once` takes no end_date and at most `count: 1`.
 * - `null` for an optional field means "absent" (models often send it); unknown keys are
 *   refused.
 *
 * The RRULE strings carry no DTSTART: the start date is stored beside them and passed to
 * `occurrencesBetween` / `nextOccurrences`.
 */
import rrulePkg from "rrule";
import type { Options as RRuleOptions } from "rrule";
import { addDays, daysBetween, formatDay, formatDayNumber, isValidIsoDate, MAX_YEAR, MS_PER_DAY, requireDay, ScheduleError } from "../../calendar/days.js";
import { isValidTimeZone, todayInTimeZone } from "../../calendar/time-zones.js";

// Re-exported: the schedule's callers and tests name them through this module.
export { addDays, daysBetween, isValidIsoDate, ScheduleError, todayInTimeZone };
import { parseSimpleRule, type SimpleRule, simpleOccurrences } from "./periodic.js";
import { schemaBounds } from "../../../generated/limits.js";

export { isValidTimeZone };

// rrule 2.8.1 has no "exports" map and no "type": Node's ESM loader (and tsx) sees its CommonJS
// (UMD) build, whose named exports are not detectable: `import { RRule } from 'rrule'` fails at
// run time. The default import is the CommonJS `module.exports` object.
const { RRule } = rrulePkg;

export const FREQUENCIES = ["once", "daily", "weekly", "biweekly", "monthly", "quarterly", "yearly"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type WeekdayCode = (typeof WEEKDAYS)[number];

/** The schedule as it crosses the tool boundary. */
export interface Schedule {
  frequency: Frequency;
  /** YYYY-MM-DD, the earliest possible due date. */
  start_date: string;
  /** Every N periods; default 1. */
  interval?: number;
  /** 1..31, or -1 for the last day of the month. */
  day_of_month?: number;
  weekday?: WeekdayCode;
  /** YYYY-MM-DD, inclusive. */
  end_date?: string;
  count?: number;
}

/** The spec's BillSchedule bounds (generated from openrpc.json; never restated here). */
export const MAX_INTERVAL: number = schemaBounds.BillSchedule.interval.maximum;
export const MAX_COUNT: number = schemaBounds.BillSchedule.count.maximum;
/** Default and largest number of dates `occurrencesBetween` / `nextOccurrences` return. */
export const DEFAULT_OCCURRENCE_LIMIT = 1000;
export const MAX_OCCURRENCE_LIMIT = 10000;

// ---------------------------------------------------------------------------------------------
// Calendar-day helpers (UTC midnight Dates standing for calendar days)

const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"] as const;
/** Longest length of each month in any year (February 29). */
const MAX_MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const WEEKDAY_NAMES: Record<WeekdayCode, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};
const RRULE_DAY: Record<WeekdayCode, string> = {
  mon: "MO",
  tue: "TU",
  wed: "WE",
  thu: "TH",
  fri: "FR",
  sat: "SA",
  sun: "SU",
};
/** Index = Date#getUTCDay() (0 = Sunday). */
const WEEKDAY_BY_JS_DAY: readonly WeekdayCode[] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

function weekdayOf(d: Date): WeekdayCode {
  return WEEKDAY_BY_JS_DAY[d.getUTCDay()] as WeekdayCode;
}

function ordinal(n: number): string {
  const mod100 = n % 100;
  if (mod100 >= 11 && mod100 <= 13) return `${n}th`;
  switch (n % 10) {
    case 1:
      return `${n}st`;
    case 2:
      return `${n}nd`;
    case 3:
      return `${n}rd`;
    default:
      return `${n}th`;
  }
}

// ---------------------------------------------------------------------------------------------
// Validation

const SCHEDULE_KEYS = ["frequency", "start_date", "interval", "day_of_month", "weekday", "end_date", "count"] as const;
const DAY_OF_MONTH_FREQUENCIES: readonly Frequency[] = ["monthly", "quarterly", "yearly"];
const WEEKDAY_FREQUENCIES: readonly Frequency[] = ["weekly", "biweekly"];

function isInt(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v);
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return typeof v;
}

/**
 * Checks a schedule from the tool boundary and returns a clean copy (`interval` defaulted to 1,
 * `null` optional fields dropped). Throws a `ScheduleError` naming the first bad field (as
 * `${field}.<name>`, `field` defaulting to "schedule"). See the module comment for the rules.
 * It does not fill in `weekday` / `day_of_month` from start_date: those defaults are applied
 * when the rule is built, so changing only start_date later moves them along.
 */
export function validateSchedule(input: unknown, field = "schedule"): Schedule {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ScheduleError(
      field,
      'an object such as {"frequency":"monthly","start_date":"2026-01-31"}',
      `must be an object with at least frequency and start_date, got ${describeValue(input)}`,
    );
  }
  const raw = input as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!(SCHEDULE_KEYS as readonly string[]).includes(key)) {
      throw new ScheduleError(`${field}.${key}`, `only ${SCHEDULE_KEYS.join(", ")}`, `is not a schedule field; allowed fields are ${SCHEDULE_KEYS.join(", ")}`);
    }
  }
  const get = (key: (typeof SCHEDULE_KEYS)[number]): unknown => (raw[key] === null ? undefined : raw[key]);

  const frequency = get("frequency");
  if (typeof frequency !== "string" || !(FREQUENCIES as readonly string[]).includes(frequency)) {
    throw new ScheduleError(
      `${field}.frequency`,
      `one of ${FREQUENCIES.join(", ")}`,
      `must be one of ${FREQUENCIES.join(", ")}, got ${describeValue(frequency)}`,
    );
  }
  const freq = frequency as Frequency;

  const start = requireDay(get("start_date"), `${field}.start_date`);
  const out: Schedule = { frequency: freq, start_date: formatDay(start), interval: 1 };

  const interval = get("interval");
  if (interval !== undefined) {
    if (!isInt(interval) || interval < 1 || interval > MAX_INTERVAL) {
      throw new ScheduleError(
        `${field}.interval`,
        `an integer from 1 to ${MAX_INTERVAL}`,
        `must be an integer from 1 to ${MAX_INTERVAL}, got ${describeValue(interval)}`,
      );
    }
    if (freq === "once" && interval !== 1) {
      throw new ScheduleError(
        `${field}.interval`,
        "absent (or 1) for a one-off bill",
        `is not used with frequency "once"; remove it, or choose a repeating frequency`,
      );
    }
    out.interval = interval;
  }

  const weekday = get("weekday");
  if (weekday !== undefined) {
    if (typeof weekday !== "string" || !(WEEKDAYS as readonly string[]).includes(weekday)) {
      throw new ScheduleError(`${field}.weekday`, `one of ${WEEKDAYS.join(", ")}`, `must be one of ${WEEKDAYS.join(", ")}, got ${describeValue(weekday)}`);
    }
    if (!WEEKDAY_FREQUENCIES.includes(freq)) {
      const hint = DAY_OF_MONTH_FREQUENCIES.includes(freq) ? " (use day_of_month instead)" : "";
      throw new ScheduleError(
        `${field}.weekday`,
        "only with frequency weekly or biweekly",
        `is only used with frequency weekly or biweekly, not "${freq}"; remove it${hint}`,
      );
    }
    out.weekday = weekday as WeekdayCode;
  }

  const dayOfMonth = get("day_of_month");
  if (dayOfMonth !== undefined) {
    if (!isInt(dayOfMonth) || !((dayOfMonth >= 1 && dayOfMonth <= 31) || dayOfMonth === -1)) {
      throw new ScheduleError(
        `${field}.day_of_month`,
        "an integer from 1 to 31, or -1 for the last day of the month",
        `must be an integer from 1 to 31, or -1 for the last day of the month, got ${describeValue(dayOfMonth)}`,
      );
    }
    if (!DAY_OF_MONTH_FREQUENCIES.includes(freq)) {
      const hint = WEEKDAY_FREQUENCIES.includes(freq) ? " (use weekday instead)" : "";
      throw new ScheduleError(
        `${field}.day_of_month`,
        "only with frequency monthly, quarterly or yearly",
        `is only used with frequency monthly, quarterly or yearly, not "${freq}"; remove it${hint}`,
      );
    }
    if (freq === "yearly" && dayOfMonth > 0) {
      const month = start.getUTCMonth();
      const maxDays = MAX_MONTH_DAYS[month] as number;
      if (dayOfMonth > maxDays) {
        throw new ScheduleError(
          `${field}.day_of_month`,
          `1 to ${maxDays}, or -1, for a yearly bill in ${MONTH_NAMES[month]}`,
          `${MONTH_NAMES[month]} (the month of start_date) has at most ${maxDays} days, got ${dayOfMonth}; use -1 for its last day`,
        );
      }
    }
    out.day_of_month = dayOfMonth;
  }

  const endDate = get("end_date");
  const count = get("count");
  if (endDate !== undefined && count !== undefined) {
    throw new ScheduleError(`${field}.count`, "either end_date or count, not both", "cannot be combined with end_date; give either end_date or count");
  }
  if (endDate !== undefined) {
    if (freq === "once") {
      throw new ScheduleError(`${field}.end_date`, "absent for a one-off bill", 'is not used with frequency "once"; remove it');
    }
    const end = requireDay(endDate, `${field}.end_date`);
    if (end.getTime() < start.getTime()) {
      throw new ScheduleError(
        `${field}.end_date`,
        `a date on or after start_date (${out.start_date})`,
        `must not be before start_date ${out.start_date}, got ${JSON.stringify(endDate)}`,
      );
    }
    out.end_date = formatDay(end);
  }
  if (count !== undefined) {
    if (!isInt(count) || count < 1 || count > MAX_COUNT) {
      throw new ScheduleError(`${field}.count`, `an integer from 1 to ${MAX_COUNT}`, `must be an integer from 1 to ${MAX_COUNT}, got ${describeValue(count)}`);
    }
    if (freq === "once" && count !== 1) {
      throw new ScheduleError(
        `${field}.count`,
        "absent (or 1) for a one-off bill",
        'is not used with frequency "once"; remove it, or choose a repeating frequency',
      );
    }
    out.count = count;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// RRULE

/** BYMONTHDAY (and BYSETPOS) for "day d of the month, or the last day if the month is shorter". */
function monthDayParts(day: number): string[] {
  if (day === -1) return ["BYMONTHDAY=-1"];
  if (day <= 28) return [`BYMONTHDAY=${day}`];
  const days: number[] = [];
  for (let d = 28; d <= day; d++) days.push(d);
  // The last existing day among 28..d in each month: the 31st in January, the 28th or 29th in
  // February, the 30th in April. Plain BYMONTHDAY=31 would skip the shorter months.
  return [`BYMONTHDAY=${days.join(",")}`, "BYSETPOS=-1"];
}

function effectiveDayOfMonth(s: Schedule): number {
  return s.day_of_month ?? requireDay(s.start_date, "schedule.start_date").getUTCDate();
}

function effectiveWeekday(s: Schedule): WeekdayCode {
  return s.weekday ?? weekdayOf(requireDay(s.start_date, "schedule.start_date"));
}

/**
 * The RFC 5545 RRULE (without DTSTART and without the "RRULE:" prefix) for a schedule, e.g.
 * `FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=-1` or
 * `FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=28,29,30,31;BYSETPOS=-1` (day 31). Validates first.
 */
export function toRRule(input: Schedule): string {
  const s = validateSchedule(input);
  const n = s.interval ?? 1;
  const start = requireDay(s.start_date, "schedule.start_date");
  let parts: string[];
  switch (s.frequency) {
    case "once":
      parts = ["FREQ=DAILY", "INTERVAL=1", "COUNT=1"];
      return parts.join(";");
    case "daily":
      parts = ["FREQ=DAILY", `INTERVAL=${n}`];
      break;
    case "weekly":
    case "biweekly": {
      const weeks = s.frequency === "biweekly" ? 2 * n : n;
      // WKST = the weekday of start_date makes "the week of start_date" the 7 days beginning on
      // it, so the first due date is the first chosen weekday on or after start_date and the
      // following ones come every `weeks` weeks after it.
      parts = ["FREQ=WEEKLY", `INTERVAL=${weeks}`, `BYDAY=${RRULE_DAY[effectiveWeekday(s)]}`, `WKST=${RRULE_DAY[weekdayOf(start)]}`];
      break;
    }
    case "monthly":
    case "quarterly": {
      const months = s.frequency === "quarterly" ? 3 * n : n;
      parts = ["FREQ=MONTHLY", `INTERVAL=${months}`, ...monthDayParts(effectiveDayOfMonth(s))];
      break;
    }
    case "yearly":
      parts = ["FREQ=YEARLY", `INTERVAL=${n}`, `BYMONTH=${start.getUTCMonth() + 1}`, ...monthDayParts(effectiveDayOfMonth(s))];
      break;
  }
  if (s.count !== undefined) parts.push(`COUNT=${s.count}`);
  if (s.end_date !== undefined) parts.push(`UNTIL=${s.end_date.replace(/-/g, "")}`);
  return parts.join(";");
}

type RRuleInstance = InstanceType<typeof RRule>;

function buildRule(rrule: string, startDate: string): RRuleInstance {
  const dtstart = requireDay(startDate, "start_date");
  if (typeof rrule !== "string" || !/^(RRULE:)?FREQ=/i.test(rrule.trim()) || /DTSTART|TZID|[\r\n]/i.test(rrule)) {
    throw new Error(`not a stored bill RRULE: ${JSON.stringify(rrule)}`);
  }
  let options: Partial<RRuleOptions>;
  try {
    options = RRule.parseString(rrule.trim());
  } catch (e) {
    throw new Error(`cannot parse RRULE ${JSON.stringify(rrule)}: ${(e as Error).message}`, { cause: e });
  }
  if (options.freq === undefined) throw new Error(`RRULE without FREQ: ${JSON.stringify(rrule)}`);
  // No tzid: the rule works on UTC midnights standing for calendar days. noCache: rules are
  // built per call and thrown away.
  return new RRule({ ...options, dtstart, tzid: null }, true);
}

const simpleRuleCache = new Map<string, SimpleRule | null>();

/**
 * parseSimpleRule, remembered per (start date, RRULE): list_bill_reminders asks for every bill twice
 * per call, and the parse cost more than the arithmetic. Entries are immutable and few (one per
 * stored bill schedule); the bound only keeps a flood of distinct rules from growing it.
 */
function simpleRuleFor(rrule: string, startDate: string): SimpleRule | null {
  if (typeof rrule !== "string") return null;
  const key = `${startDate}|${rrule}`;
  let rule = simpleRuleCache.get(key);
  if (rule === undefined) {
    rule = parseSimpleRule(rrule, requireDay(startDate, "start_date"));
    if (simpleRuleCache.size >= 1000) simpleRuleCache.clear();
    simpleRuleCache.set(key, rule);
  }
  return rule;
}

function checkLimit(limit: number, field: string): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OCCURRENCE_LIMIT) {
    throw new RangeError(`${field} must be an integer from 1 to ${MAX_OCCURRENCE_LIMIT}, got ${String(limit)}`);
  }
}

/**
 * The due dates of the rule (stored RRULE + start date) from `from` to `to`, both inclusive,
 * in order, at most `limit` (default 1000) of them. Empty when `to` is before `from`.
 */
export function occurrencesBetween(rrule: string, startDate: string, from: string, to: string, limit = DEFAULT_OCCURRENCE_LIMIT): string[] {
  checkLimit(limit, "limit");
  const fromDay = requireDay(from, "from");
  const toDay = requireDay(to, "to");
  const simple = simpleRuleFor(rrule, startDate);
  if (simple) {
    if (toDay.getTime() < fromDay.getTime()) return [];
    return simpleOccurrences(simple, fromDay.getTime() / MS_PER_DAY, toDay.getTime() / MS_PER_DAY, limit).map(formatDayNumber);
  }
  const rule = buildRule(rrule, startDate);
  if (toDay.getTime() < fromDay.getTime()) return [];
  return rule.between(fromDay, toDay, true, (_d, i) => i < limit).map(formatDay);
}

/**
 * The next `n` due dates strictly after `after` (or on or after it with `inclusive`), in order;
 * fewer when the series ends first. For "the next three due dates as of today" pass today and
 * `inclusive: true`, so that a bill due today is listed.
 */
export function nextOccurrences(rrule: string, startDate: string, after: string, n: number, inclusive = false): string[] {
  checkLimit(n, "n");
  const afterDay = requireDay(after, "after");
  const end = new Date(Date.UTC(MAX_YEAR, 11, 31));
  const simple = simpleRuleFor(rrule, startDate);
  if (simple) {
    // Due dates are whole days, so "strictly after" is "on or after the next day".
    const from = afterDay.getTime() / MS_PER_DAY + (inclusive ? 0 : 1);
    return simpleOccurrences(simple, from, end.getTime() / MS_PER_DAY, n).map(formatDayNumber);
  }
  const rule = buildRule(rrule, startDate);
  return rule.between(afterDay, end, inclusive, (_d, i) => i < n).map(formatDay);
}

// ---------------------------------------------------------------------------------------------
// Plain English

function monthDayPhrase(day: number): string {
  if (day === -1) return "the last day";
  if (day > 28) return `the ${ordinal(day)} (the last day in shorter months)`;
  return `the ${ordinal(day)}`;
}

/**
 * The schedule in plain English, e.g. "Every month on the last day, from 2026-01-31",
 * "Every 2 weeks on Friday, from 2026-01-02, 6 times", "Once, on 2026-03-15".
 */
export function describeSchedule(input: Schedule): string {
  const s = validateSchedule(input);
  const n = s.interval ?? 1;
  const start = requireDay(s.start_date, "schedule.start_date");
  let what: string;
  switch (s.frequency) {
    case "once":
      return `Once, on ${s.start_date}`;
    case "daily":
      what = n === 1 ? "Every day" : `Every ${n} days`;
      break;
    case "weekly":
    case "biweekly": {
      const weeks = s.frequency === "biweekly" ? 2 * n : n;
      what = `${weeks === 1 ? "Every week" : `Every ${weeks} weeks`} on ${WEEKDAY_NAMES[effectiveWeekday(s)]}`;
      break;
    }
    case "monthly":
      what = `${n === 1 ? "Every month" : `Every ${n} months`} on ${monthDayPhrase(effectiveDayOfMonth(s))}`;
      break;
    case "quarterly":
      what = `${n === 1 ? "Every quarter" : `Every ${3 * n} months`} on ${monthDayPhrase(effectiveDayOfMonth(s))}`;
      break;
    case "yearly": {
      const month = MONTH_NAMES[start.getUTCMonth()] as string;
      const day = effectiveDayOfMonth(s);
      let on: string;
      if (day === -1) on = `the last day of ${month}`;
      else if (month === "February" && day === 29) on = "February 29 (February 28 in other years)";
      else on = `${month} ${day}`;
      what = `${n === 1 ? "Every year" : `Every ${n} years`} on ${on}`;
      break;
    }
  }
  let text = `${what}, from ${s.start_date}`;
  if (s.end_date !== undefined) text += `, until ${s.end_date}`;
  if (s.count !== undefined) text += `, ${s.count} ${s.count === 1 ? "time" : "times"}`;
  return text;
}
