/**
 * Dates as banks write them: 24.11.2026, 11/24/2026, 2026-11-24, 24/11/26, 20261124 (OFX), 11/24'26
 * (Quicken). The order of day and month is the statement's, detected over the whole column (a day above 12
 * decides) or given by the person; a two-digit year is 20yy (bank statements are not older than that).
 */
import { isoDateOf } from "../calendar/days.js";
import type { DateOrder } from "./types.js";

function iso(y: number, m: number, d: number): string | null {
  return y < 1000 ? null : isoDateOf(y, m, d);
}

const year = (text: string): number => (text.length === 2 ? 2000 + Number(text) : Number(text));

export function parseDate(text: string, order: DateOrder): string | null {
  const s = text.trim();
  let m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T\s[].*)?$/.exec(s);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{4})[./](\d{1,2})[./](\d{1,2})$/.exec(s);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})\s*[./-]\s*(\d{1,2})\s*(?:[./-]|'\s*)(\d{4}|\d{2})(?:\s.*)?$/.exec(s);
  if (!m) return null;
  const [a, b, y] = [Number(m[1]), Number(m[2]), year(m[3]!)];
  return order === "month_first" ? iso(y, a, b) : iso(y, b, a);
}

/** The order of a column of dates: ISO when they start with the year, else the part above 12 decides. */
export function guessDateOrder(samples: readonly string[], fallback: DateOrder): DateOrder {
  let dayFirst = false;
  let monthFirst = false;
  let isoLike = 0;
  for (const raw of samples) {
    const s = raw.trim();
    if (/^\d{4}[-./]?\d{2}/.test(s)) {
      isoLike++;
      continue;
    }
    const m = /^(\d{1,2})\s*[./-]\s*(\d{1,2})/.exec(s);
    if (!m) continue;
    if (Number(m[1]) > 12) dayFirst = true;
    if (Number(m[2]) > 12) monthFirst = true;
  }
  if (isoLike > 0 && isoLike >= samples.length / 2) return "iso";
  if (dayFirst && !monthFirst) return "day_first";
  if (monthFirst && !dayFirst) return "month_first";
  return fallback;
}
