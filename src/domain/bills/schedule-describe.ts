/** describeSchedule: a schedule in plain English. */
import { requireDay } from "../../calendar/days.js";
import { MONTH_NAMES, ordinal, WEEKDAY_NAMES } from "../../calendar/names.js";
import type { Schedule } from "./schedule-types.js";
import { effectiveDayOfMonth, effectiveWeekday } from "./schedule-rrule.js";
import { validateSchedule } from "./schedule-validate.js";

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
