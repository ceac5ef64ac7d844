/** validateSchedule: a schedule from the tool boundary checked against the rules of schedule.ts. */
import { formatDay, requireDay, ScheduleError } from "../../calendar/days.js";
import { MAX_MONTH_DAYS, MONTH_NAMES, WEEKDAYS, type WeekdayCode } from "../../calendar/names.js";
import { FREQUENCIES, MAX_COUNT, MAX_INTERVAL, type Frequency, type Schedule } from "./schedule-types.js";

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
