/**
 * Time zone names: the one check, shared by user creation (src/auth/users.ts) and the user's
 * "today" (todayInTimeZone in src/domain/bills/schedule.ts). A leaf module so that auth does not
 * load the bill schedules to validate a name.
 */

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
