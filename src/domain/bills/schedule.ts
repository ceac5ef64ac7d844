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
 *
 * This module is the area's one import for schedules; the work is split by job: schedule-types.ts (the
 * shape and bounds), schedule-validate.ts (the rules above), schedule-rrule.ts (RRULE building),
 * schedule-expand.ts (due dates, by arithmetic in periodic.ts for the rules toRRule writes, with the
 * `rrule` package for any other) and schedule-describe.ts (plain English). Calendar facts (month names
 * and lengths, weekdays) live in src/calendar/names.ts.
 */

// Re-exported: the schedule's callers and tests name them through this module.
export { addDays, daysBetween, isValidIsoDate, ScheduleError } from "../../calendar/days.js";
export { isValidTimeZone, todayInTimeZone } from "../../calendar/time-zones.js";
export { WEEKDAYS, type WeekdayCode } from "../../calendar/names.js";
export * from "./schedule-types.js";
export { validateSchedule } from "./schedule-validate.js";
export { toRRule } from "./schedule-rrule.js";
export { nextOccurrences, occurrencesBetween } from "./schedule-expand.js";
export { describeSchedule } from "./schedule-describe.js";
