/**
 * Money and dates as the person reads them, in the host's locale. Amounts arrive as Money {value,
 * currency, minor}: value is an exact decimal string, formatted as it is (Intl takes decimal strings);
 * minor (an integer) only sizes bars and lines.
 */
export interface Money {
  value: string;
  currency: string;
  minor: number;
}

let locale = "en-US";

export function setLocale(value: string | undefined): void {
  if (value && Intl.NumberFormat.supportedLocalesOf([value]).length) locale = value;
}

export function money(value: string | Money, currency?: string): string {
  const v = typeof value === "string" ? value : value.value;
  const c = typeof value === "string" ? currency! : value.currency;
  try {
    // Intl.NumberFormat formats a decimal string exactly (no float rounding on the way).
    return new Intl.NumberFormat(locale, { style: "currency", currency: c }).format(v as unknown as number);
  } catch {
    return `${v} ${c}`;
  }
}

export function signedMoney(m: Money): string {
  return m.minor > 0 ? `+${money(m)}` : money(m);
}

export function percent(fraction: number): string {
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}

/** "2026-10" → "Oct 2026"; "2026-10-31" → "Oct 31, 2026" (calendar days, no time zone shift). */
export function monthLabel(ym: string): string {
  const [y, m] = ym.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, { month: "short", year: "numeric", timeZone: "UTC" }).format(Date.UTC(y!, m! - 1, 1));
}

export function dayLabel(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" }).format(Date.UTC(y!, m! - 1, d!));
}

/** "2026-11-18" → "Nov 18": for rows of one statement, where the year goes without saying. */
export function shortDay(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", timeZone: "UTC" }).format(Date.UTC(y!, m! - 1, d!));
}
