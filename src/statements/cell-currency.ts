/**
 * A currency written in an amount cell ("USD 5.00", "5,00 €", "£23.45"): read like a currency column, so
 * that a row in another currency is refused by name instead of landing in the wallet as if it were its
 * own (issue 41). Linear scans of the cell's two ends, no regular expression.
 */

const SYMBOLS: Record<string, string> = { "€": "EUR", "£": "GBP", "₹": "INR", "₩": "KRW", "₺": "TRY", "₽": "RUB", "₪": "ILS", "¥": "JPY" };

/** Currencies written with a plain "$": the symbol does not say which, so any of them agrees with it. */
const DOLLARS = new Set(["USD", "CAD", "AUD", "NZD", "SGD", "HKD", "MXN", "TWD"]);

const isUpper = (c: string | undefined) => c !== undefined && c >= "A" && c <= "Z";

/** The ISO code (or "$") an amount cell states at its start or end, or null. */
export function currencyInCell(text: string): string | null {
  const s = text.trim();
  if (s.length === 0) return null;
  for (const end of [s.slice(0, 3), s.slice(-3)]) {
    // A code stands alone: "USD 5.00", "5.00 USD", "USD5.00".
    if (end.length === 3 && isUpper(end[0]) && isUpper(end[1]) && isUpper(end[2])) return end;
  }
  for (const c of [s[0]!, s[s.length - 1]!, s[1] ?? "", s[s.length - 2] ?? ""]) {
    if (SYMBOLS[c] !== undefined) return SYMBOLS[c]!;
    if (c === "$") return "$";
  }
  return null;
}

/** Whether a currency stated on a row (a code or "$") is the wallet's. */
export function sameCurrency(stated: string, wallet: string): boolean {
  return stated === wallet || (stated === "$" && DOLLARS.has(wallet));
}

/** The cell without the currency at its start or end ("-23,45 €" → "-23,45"), for guessing the decimal mark. */
export function withoutCurrency(text: string): string {
  const s = text.trim();
  const code = currencyInCell(s);
  if (code === null) return s;
  const mark = code === "$" ? "$" : s.includes(code) ? code : (Object.keys(SYMBOLS).find((k) => SYMBOLS[k] === code && s.includes(k)) ?? "");
  if (mark === "") return s;
  if (s.startsWith(mark)) return s.slice(mark.length).trim();
  if (s.endsWith(mark)) return s.slice(0, s.length - mark.length).trim();
  // "-€12" / "12€-": the mark beside a sign.
  return s.replace(mark, "").trim();
}
