/**
 * Names and fixed facts of the calendar that schedules and their descriptions use: month names, the
 * longest length of each month, weekday codes of a day, English ordinals. Days are UTC midnights standing
 * for calendar days (src/calendar/days.ts), so only getUTC* is read.
 */

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type WeekdayCode = (typeof WEEKDAYS)[number];

export const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"] as const;
/** Longest length of each month in any year (February 29). */
export const MAX_MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
export const WEEKDAY_NAMES: Record<WeekdayCode, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};
/** Index = Date#getUTCDay() (0 = Sunday). */
const WEEKDAY_BY_JS_DAY: readonly WeekdayCode[] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

export function weekdayOf(d: Date): WeekdayCode {
  return WEEKDAY_BY_JS_DAY[d.getUTCDay()] as WeekdayCode;
}

export function ordinal(n: number): string {
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
