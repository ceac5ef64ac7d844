/**
 * Time zones: the one check of a zone's name (user creation, src/auth/users.ts) and the user's "today"
 * (todayInTimeZone), shared by every area. A leaf module: it imports no area.
 */
import { ScheduleError } from "./days.js";

const formatterCache = new Map<string, Intl.DateTimeFormat>();

/**
 * A formatter of calendar days (Gregorian, Latin digits) in `timeZone`, cached per zone because
 * building one costs far more than formatting with it; throws RangeError for an unknown zone.
 */
export function dayFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatterCache.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      calendar: "gregory",
      numberingSystem: "latn",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    if (formatterCache.size >= 1000) formatterCache.clear();
    formatterCache.set(timeZone, f);
  }
  return f;
}

/** True when `tz` is a time zone `Intl` knows, such as "Europe/Paris" or "UTC". */
export function isValidTimeZone(tz: unknown): tz is string {
  if (typeof tz !== "string" || tz.length === 0 || tz.length > 64) return false;
  try {
    dayFormatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The caller's calendar day now: todayInTimeZone of a call's context (the domain's entry points use it). */
export const todayOf = (ctx: { caller: { timezone: string }; now(): Date }): string => todayInTimeZone(ctx.caller.timezone, ctx.now());

/**
 * The last day computed per zone, with the UTC second it was computed for. A zone's offsets are whole
 * seconds (tzdb), so its day can only change at the start of a UTC second: within the same second the day
 * is the same, and formatToParts (2–3 % of a whoami's CPU) runs at most once a second per zone.
 */
const lastDay = new Map<string, { second: number; day: string }>();

/** The calendar day (YYYY-MM-DD) it is at the instant `now` in `timeZone`, e.g. the user's "today". */
export function todayInTimeZone(timeZone: string, now: Date = new Date()): string {
  const second = Math.floor(now.getTime() / 1000);
  const last = lastDay.get(timeZone);
  if (last !== undefined && last.second === second) return last.day;
  const day = computeDay(timeZone, now);
  if (lastDay.size >= 1000) lastDay.clear();
  lastDay.set(timeZone, { second, day });
  return day;
}

function computeDay(timeZone: string, now: Date): string {
  if (!isValidTimeZone(timeZone)) {
    throw new ScheduleError(
      "timezone",
      'an IANA time zone name such as "Europe/Paris"',
      `unknown time zone ${JSON.stringify(timeZone)}; expected an IANA name such as "Europe/Paris"`,
    );
  }
  if (Number.isNaN(now.getTime())) throw new RangeError("now is an invalid Date");
  const parts = dayFormatter(timeZone).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year").padStart(4, "0")}-${part("month")}-${part("day")}`;
}

/**
 * The first instant of the calendar day `day` in `timeZone` (midnight there, or the first instant after
 * a gap that skips it): the smallest instant whose day in the zone is `day`. Found from UTC midnight by
 * at most a day's worth of zone offset, refined to the minute.
 */
export function startOfDayIn(timeZone: string, day: string): Date {
  const utc = Date.parse(`${day}T00:00:00Z`);
  // Offsets lie within ±14 h: the day starts between utc − 14 h and utc + 14 h. Binary search by minute.
  let lo = utc - 15 * 3_600_000;
  let hi = utc + 15 * 3_600_000;
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (todayInTimeZone(timeZone, new Date(mid)) >= day) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}
