/**
 * Calendar days as YYYY-MM-DD strings (UTC midnight Dates stand for them in arithmetic), shared by every
 * area that reasons in days: bill schedules, budget periods, goal pace, transaction dates. A leaf module:
 * it imports no area.
 */
import { limits } from "../../generated/limits.js";
import { FieldError } from "../field-error.js";

export const ISO_DATE_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
export const MS_PER_DAY = 86_400_000;
/** The first year a stored day may have (info.x-limits.first_date). */
export const MIN_YEAR = Number(limits.firstDate.slice(0, 4));
/** Not a bound of input (dates stop at info.x-limits.last_date): how far an open-ended series is expanded. */
export const MAX_YEAR = 9999;

/** A refused date or schedule field. `field` is a path such as `schedule.day_of_month`; `expected` says what is accepted. */
export class ScheduleError extends FieldError {
  override readonly name = "ScheduleError";
}

/** Parses YYYY-MM-DD (a real calendar day, years 1900..9999) into the Date at 00:00 UTC, or null. */
export function parseDay(s: unknown): Date | null {
  if (typeof s !== "string") return null;
  const m = ISO_DATE_RE.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < MIN_YEAR || y > MAX_YEAR || mo < 1 || mo > 12 || d < 1) return null;
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date;
}

/** True for a real calendar day written YYYY-MM-DD (years 1900..9999). */
export function isValidIsoDate(s: unknown): s is string {
  return parseDay(s) !== null;
}

export function requireDay(s: unknown, field: string): Date {
  const d = parseDay(s);
  if (!d) {
    const got = typeof s === "string" ? JSON.stringify(s) : s === null ? "null" : typeof s;
    throw new ScheduleError(
      field,
      'a calendar date written YYYY-MM-DD, such as "2026-01-31"',
      `must be a real calendar date written YYYY-MM-DD, such as "2026-01-31", got ${got}`,
    );
  }
  return d;
}

/** The YYYY-MM-DD of a Date, read in UTC. */
export function formatDay(d: Date): string {
  const y = String(d.getUTCFullYear()).padStart(4, "0");
  const m = String(d.getUTCMonth() + 1).padStart(2, "0");
  const day = String(d.getUTCDate()).padStart(2, "0");
  return `${y}-${m}-${day}`;
}

/** The YYYY-MM-DD of a day number (UTC-midnight milliseconds / MS_PER_DAY). */
export function formatDayNumber(day: number): string {
  return formatDay(new Date(day * MS_PER_DAY));
}

/** `date` plus `days` calendar days (negative to go back). */
export function addDays(date: string, days: number): string {
  const d = requireDay(date, "date");
  return formatDay(new Date(d.getTime() + days * MS_PER_DAY));
}

/** Whole calendar days from `from` to `to` (positive when `to` is later), e.g. days until a due date. */
export function daysBetween(from: string, to: string): number {
  return Math.round((requireDay(to, "to").getTime() - requireDay(from, "from").getTime()) / MS_PER_DAY);
}

// ── Day numbers and months, for arithmetic in loops (no validation: callers pass checked days) ──────

/** Days since 1970-01-01 of a year, month (0 for January) and day of the month. */
export function epochDayOf(year: number, month0: number, day: number): number {
  return Math.round(Date.UTC(year, month0, day) / MS_PER_DAY);
}

/** The day number of the last day a series is expanded to (MAX_YEAR-12-31). */
export const LAST_EPOCH_DAY = epochDayOf(MAX_YEAR, 11, 31);

/** Days since 1970-01-01 of a YYYY-MM-DD day. */
export function toEpochDay(day: string): number {
  return epochDayOf(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

/** An instant `days` whole days of 24 hours later (negative: earlier): an expiry or a cut-off, not a calendar day. */
export function instantPlusDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * MS_PER_DAY);
}

/** A checked day plus `n` days (negative to go back); addDays is the same for a day from outside. */
export function plusDays(day: string, n: number): string {
  return formatDayNumber(toEpochDay(day) + n);
}

/** Days from checked `from` to `to` (positive when `to` is later). */
export function dayDiff(from: string, to: string): number {
  return toEpochDay(to) - toEpochDay(from);
}

/** The number of days of a month (month0: 0 for January). */
export function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/**
 * `day` plus `months` months, on the same day of the month (or on `dayOfMonth`, for a series anchored on
 * its first day) or the last day of a shorter month.
 */
export function plusMonthsClamped(day: string, months: number, dayOfMonth = Number(day.slice(8, 10))): string {
  const total = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + months;
  const year = Math.floor(total / 12);
  const month0 = total - year * 12;
  const d = Math.min(dayOfMonth, daysInMonth(year, month0));
  return `${String(year).padStart(4, "0")}-${String(month0 + 1).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** The ISO date of year, month (1..12) and day, or null when that day does not exist. */
export function isoDateOf(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1)) return null;
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The first day of the month `months` after (negative: before) the month of `day`. */
export function monthStart(day: string, months = 0): string {
  return plusMonthsClamped(`${day.slice(0, 8)}01`, months);
}
