/**
 * Amounts as banks write them, read into a signed decimal with a point. Handles a decimal comma or point,
 * thousands separators (the other mark, a space, a narrow space or an apostrophe), a sign before or after
 * the number, parentheses for negative, a DR or CR mark after it, and a currency code or symbol around it. Returns null for anything
 * else: never a guess.
 */

const LEADING_CURRENCY = /^(?:[A-Z]{3}|[€$£¥₹])\s*/;
// The look-behind keeps the pattern linear: unanchored, `\s*` would otherwise be tried again from every space
// of a long run before the end fails (issue 41; the lint rule regexp/no-super-linear-move holds it).
const TRAILING_CURRENCY = /(?<!\s)\s*(?:[A-Z]{3}|[€$£¥₹])$/;

// A debit or credit mark after the number ("45.00 DR", "1,234.56 CR"), as Australian, Indian and card exports write it.
const TRAILING_MARK = /(?<![A-Za-z\s])\s*(DR|CR|Dr|Cr|dr|cr)\.?$/;

/** A dash standing for no amount in a debit or credit cell ("-" beside "$1,200.00": Banorte, many Indian and Latin American exports). */
export const isNoAmount = (cell: string): boolean => /^[-\u2013\u2014]$/.test(cell.trim());

export function parseDecimal(text: string, decimal: "," | "."): string | null {
  // U+2212, the minus sign of a typeset or pasted number ("− 45,00"), is a minus.
  let s = text.trim().replace(/\u2212\s*/g, "-");
  let negative = false;
  const mark = TRAILING_MARK.exec(s);
  if (mark !== null && /\d/.test(s.slice(0, mark.index))) {
    s = s.slice(0, mark.index).trim();
    if (/^[+-]|[+-]$|^\(/.test(s)) return null;
    negative = mark[1]!.toUpperCase() === "DR";
  }
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  let signs = 0;
  // A sign and a currency may come in either order on either side ("-€12", "€-12", "12,00 EUR-").
  for (let pass = 0; pass < 2; pass++) {
    if (/^[+-]/.test(s)) {
      negative = negative !== (s[0] === "-");
      s = s.slice(1).trim();
      signs++;
    }
    if (/[+-]$/.test(s)) {
      negative = negative !== s.endsWith("-");
      s = s.slice(0, -1).trim();
      signs++;
    }
    s = s.replace(LEADING_CURRENCY, "").replace(TRAILING_CURRENCY, "");
  }
  if (s === "" || signs > 1) return null;
  const thousands = decimal === "," ? "[.\\s\\u00a0\\u202f']" : "[,\\s\\u00a0\\u202f']";
  const grouped = new RegExp(`^\\d{1,3}(${thousands}\\d{3})+(${decimal === "," ? "," : "\\."}\\d+)?$`);
  const plain = new RegExp(`^\\d+(${decimal === "," ? "," : "\\."}\\d+)?$|^${decimal === "," ? "," : "\\."}\\d+$`);
  if (!grouped.test(s) && !plain.test(s)) return null;
  const [whole = "", fraction] = s.split(decimal);
  const digits = (whole.replace(/\D/g, "") || "0").replace(/^0+(?=\d)/, "");
  const out = fraction === undefined ? digits : `${digits}.${fraction}`;
  const isZero = /^[0.]+$/.test(out);
  return negative && !isZero ? `-${out}` : out;
}

/** Which decimal mark a column of amounts uses: the mark followed by one or two digits at the end. */
export function guessDecimal(samples: readonly string[], fallback: "," | "."): "," | "." {
  let comma = 0;
  let point = 0;
  for (const raw of samples) {
    const s = raw.trim().replace(/[-+)]$/, "");
    if (/,\d{1,2}$/.test(s)) comma++;
    else if (/\.\d{1,2}$/.test(s)) point++;
    else if (/\.\d{3},|^\d{1,3}(\.\d{3})+$/.test(s)) comma++;
    else if (/,\d{3}\.|^\d{1,3}(,\d{3})+$/.test(s)) point++;
  }
  if (comma === point) return fallback;
  return comma > point ? "," : ".";
}
