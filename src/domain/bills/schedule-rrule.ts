/** toRRule: the RFC 5545 RRULE stored for a schedule, and the defaults it takes from start_date. */
import { requireDay } from "../../calendar/days.js";
import { weekdayOf, type WeekdayCode } from "../../calendar/names.js";
import type { Schedule } from "./schedule-types.js";
import { validateSchedule } from "./schedule-validate.js";

const RRULE_DAY: Record<WeekdayCode, string> = {
  mon: "MO",
  tue: "TU",
  wed: "WE",
  thu: "TH",
  fri: "FR",
  sat: "SA",
  sun: "SU",
};

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

export function effectiveDayOfMonth(s: Schedule): number {
  return s.day_of_month ?? requireDay(s.start_date, "schedule.start_date").getUTCDate();
}

export function effectiveWeekday(s: Schedule): WeekdayCode {
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
