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

// Month names as UK and US exports write them ("24 Nov 2026", "24-Nov-26", "Nov 24, 2026"), English and
// the German, French, Dutch and Spanish abbreviations that differ from it.
const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  mrz: 3,
  mär: 3,
  mai: 5,
  okt: 10,
  dez: 12,
  fév: 2,
  fev: 2,
  avr: 4,
  juin: 6,
  juil: 7,
  aoû: 8,
  aou: 8,
  déc: 12,
  mrt: 3,
  mei: 5,
  ene: 1,
  abr: 4,
  ago: 8,
  dic: 12,
  sept: 9,
};

function withMonthName(s: string): string | null {
  const parts = s
    .toLowerCase()
    .split(/[\s,.\-/]+/)
    .filter((p) => p !== "");
  if (parts.length !== 3) return null;
  const at = parts.findIndex((p) => /^\p{L}+$/u.test(p));
  if (at < 0 || at === 2) return null;
  const month = MONTHS[parts[at]!] ?? MONTHS[parts[at]!.slice(0, 3)];
  if (month === undefined) return null;
  const rest = parts.filter((_, i) => i !== at);
  if (!rest.every((p) => /^\d{1,4}$/.test(p))) return null;
  // "24 Nov 2026" (day first) or "Nov 24 2026" (month first): the year is last either way.
  const [day, y] = [Number(rest[0]), rest[1]!];
  return y.length === 2 || y.length === 4 ? iso(year(y), month, day) : null;
}

export function parseDate(text: string, order: DateOrder): string | null {
  const s = text.trim();
  if (s.length > 0 && s.length <= 20 && /\p{L}{3}/u.test(s) && !/^\d{4}-/.test(s)) return withMonthName(s);
  let m = /^(\d{4})-?(\d{2})-?(\d{2})(?:[T\s[].*)?$/.exec(s);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{4})[./](\d{1,2})[./](\d{1,2})$/.exec(s);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})\s*[./-]\s*(\d{1,2})\s*(?:[./-]|'\s*)(\d{4}|\d{2})(?:\s.*)?$/.exec(s);
  if (!m) return null;
  const [a, b, y] = [Number(m[1]), Number(m[2]), year(m[3]!)];
  return order === "month_first" ? iso(y, a, b) : iso(y, b, a);
}

/** The order of a column of dates: ISO when they start with the year, else the part above 12 decides, else dots say day-first. */
export function guessDateOrder(samples: readonly string[], fallback: DateOrder): DateOrder {
  let dayFirst = false;
  let monthFirst = false;
  let isoLike = 0;
  let numeric = 0;
  let dotted = 0;
  for (const raw of samples) {
    const s = raw.trim();
    if (/^\d{4}[-./]?\d{2}/.test(s)) {
      isoLike++;
      continue;
    }
    const m = /^(\d{1,2})\s*([./-])\s*(\d{1,2})/.exec(s);
    if (!m) continue;
    numeric++;
    if (m[2] === ".") dotted++;
    if (Number(m[1]) > 12) dayFirst = true;
    if (Number(m[3]) > 12) monthFirst = true;
  }
  if (isoLike > 0 && isoLike >= samples.length / 2) return "iso";
  if (dayFirst && !monthFirst) return "day_first";
  if (monthFirst && !dayFirst) return "month_first";
  // Dates written with dots ("02.11.2026") are day-first wherever they are written so (German, Czech,
  // Polish, Italian, Nordic exports); no locale writes month.day.year (issue 48, third probe).
  if (!dayFirst && !monthFirst && numeric > 0 && dotted === numeric) return "day_first";
  return fallback;
}

/**
 * Where no date decides: the order under which a statement's dates fall within one month's span while the
 * other order spreads them over months (ICICI's 02/11 … 12/11 is November, not February to December). The
 * preview still asks (mapping_unsure); this is the order it reads first, and an answer of the other order
 * waits for the person's confirmation (ParsedStatement.datesApart). Null when both or neither do.
 */
export function compactOrder(samples: readonly string[]): DateOrder | null {
  const [d, m] = [dateRange(samples, "day_first")?.days, dateRange(samples, "month_first")?.days];
  if (d === undefined || m === undefined) return null;
  if (d <= 31 && m > 62) return "day_first";
  if (m <= 31 && d > 62) return "month_first";
  return null;
}

/** The first and last of the dates read in an order, and the days between them; null for fewer than three. */
export function dateRange(samples: readonly string[], order: DateOrder): { from: string; to: string; days: number } | null {
  let [from, to, n] = ["", "", 0];
  for (const d of samples) {
    const date = parseDate(d, order);
    if (date === null) continue;
    if (from === "" || date < from) from = date;
    if (to === "" || date > to) to = date;
    n++;
  }
  return n < 3 ? null : { from, to, days: (Date.parse(to) - Date.parse(from)) / 86_400_000 };
}
