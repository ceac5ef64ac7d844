/**
 * SWIFT MT940 customer statements, as German and Dutch banks export them (docs/import.md, "MT940"): one
 * tag per line, a tag's value continuing on the lines that do not start a new tag.
 *   :25:  the account;            :60F:/:60M: the opening balance;   :62F:/:62M: the closing balance
 *   :61:  one entry: value date YYMMDD, optional booking date MMDD, C/D/RC/RD, an optional funds code
 *         letter, the amount with a decimal comma, N plus a 3-letter type, the customer reference, and
 *         "//" the bank's reference;
 *   :86:  the entry's details: German banks' "?NN" subfields (?00 posting text, ?20–?29 purpose, ?32–?33
 *         the other party's name), Dutch banks' "/NAME/…/REMI/…" codes, or free text.
 * Several statements may follow each other in one file; the last closing balance is the file's. A reader
 * that walks each line once, by index: no regular expression with backtracking over the text.
 */
import { invalidParams } from "../errors.js";
import { isoDateOf } from "../calendar/days.js";
import { parseDecimal } from "./numbers.js";
import { emptyRow, type ParsedStatement, type StatedBalance, type StatementEntry } from "./types.js";

interface Field {
  tag: string;
  value: string;
}

/** A line starting ":<2 digits><optional letter>:" starts a tag; any other line continues the last one. */
function tagOf(line: string): { tag: string; rest: string } | null {
  if (line[0] !== ":") return null;
  const end = line.indexOf(":", 1);
  if (end < 3 || end > 5) return null;
  const tag = line.slice(1, end);
  const digits = tag.slice(0, 2);
  if (!(digits[0]! >= "0" && digits[0]! <= "9" && digits[1]! >= "0" && digits[1]! <= "9")) return null;
  if (tag.length === 3 && !(tag[2]! >= "A" && tag[2]! <= "Z")) return null;
  return { tag, rest: line.slice(end + 1) };
}

function fieldsOf(text: string): Field[] {
  const out: Field[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const tagged = tagOf(line);
    if (tagged !== null) out.push({ tag: tagged.tag, value: tagged.rest });
    // A statement ends with "-" (and SWIFT envelopes with "-}"); other lines continue the tag.
    else if (line.trim() === "-" || line.startsWith("-}") || line.startsWith("{")) out.push({ tag: "-", value: "" });
    else if (out.length > 0 && out[out.length - 1]!.tag !== "-") out[out.length - 1]!.value += `\n${line}`;
  }
  return out;
}

const isDigits = (s: string) => s.length > 0 && [...s].every((c) => c >= "0" && c <= "9");

function dateOf(yymmdd: string): string | null {
  if (yymmdd.length !== 6 || !isDigits(yymmdd)) return null;
  return isoDateOf(2000 + Number(yymmdd.slice(0, 2)), Number(yymmdd.slice(2, 4)), Number(yymmdd.slice(4, 6)));
}

/** :60F:/:62F: "C261124EUR5911,54": mark, date, currency, amount. */
function balanceOf(value: string): (StatedBalance & { currency: string }) | null {
  const v = value.trim();
  const mark = v[0];
  const date = dateOf(v.slice(1, 7));
  const amount = parseDecimal(v.slice(10), ",");
  if ((mark !== "C" && mark !== "D") || date === null || amount === null) return null;
  return { date, currency: v.slice(7, 10).toUpperCase(), amount: mark === "D" && amount !== "0" ? `-${amount}` : amount };
}

interface Line61 {
  date: string | null;
  amount: string | null;
  bankRef: string | null;
  customerRef: string | null;
  error: string | null;
}

/** :61: "2611241124DR23,45NDDTNONREF//2026112400012345" read left to right. */
function entryOf(value: string): Line61 {
  const first = value.split("\n")[0]!.trim();
  const out: Line61 = { date: null, amount: null, bankRef: null, customerRef: null, error: null };
  const valueDate = dateOf(first.slice(0, 6));
  if (valueDate === null) return { ...out, error: `date: ${JSON.stringify(first.slice(0, 6))} is not a YYMMDD value date` };
  let i = 6;
  // The booking date (MMDD) is the day the bank booked it; its year is the value date's, or the next or
  // previous one around the turn of the year.
  out.date = valueDate;
  if (isDigits(first.slice(6, 10))) {
    const month = Number(first.slice(6, 8));
    const day = Number(first.slice(8, 10));
    const valueMonth = Number(valueDate.slice(5, 7));
    const valueYear = Number(valueDate.slice(0, 4));
    const year = valueMonth === 12 && month === 1 ? valueYear + 1 : valueMonth === 1 && month === 12 ? valueYear - 1 : valueYear;
    out.date = isoDateOf(year, month, day) ?? valueDate;
    i = 10;
  }
  let mark = first.slice(i, i + 2);
  if (mark === "RC" || mark === "RD") i += 2;
  else {
    mark = first.slice(i, i + 1);
    if (mark !== "C" && mark !== "D") return { ...out, error: `amount: ${JSON.stringify(first.slice(i, i + 2))} is not C, D, RC or RD` };
    i += 1;
  }
  // An optional funds code: the third letter of the currency, a letter before the amount's digits.
  if (first[i] !== undefined && first[i]! >= "A" && first[i]! <= "Z") i += 1;
  let j = i;
  while (j < first.length && ((first[j]! >= "0" && first[j]! <= "9") || first[j] === ",")) j++;
  const amount = parseDecimal(first.slice(i, j), ",");
  if (amount === null) return { ...out, error: `amount: ${JSON.stringify(first.slice(i, j + 1))} is not an amount` };
  // A reversal of a credit (RC) is money out; of a debit (RD) money in.
  const out_ = mark === "D" || mark === "RC";
  out.amount = out_ && amount !== "0" ? `-${amount}` : amount;
  // "N" plus a 3-letter type, then the customer reference up to "//", then the bank's reference.
  const refs = first.slice(j + 4);
  const split = refs.indexOf("//");
  const customer = (split < 0 ? refs : refs.slice(0, split)).trim();
  const bank = split < 0 ? "" : refs.slice(split + 2).trim();
  out.customerRef = customer === "" || customer === "NONREF" ? null : customer;
  out.bankRef = bank === "" || bank === "NONREF" ? null : bank;
  return out;
}

/** :86: details: the other party's name and the purpose, from ?NN subfields, /CODE/ pairs or free text. */
function detailsOf(value: string): { payee: string | null; description: string | null } {
  const flat = value.split("\n").join("");
  if (flat.length > 3 && flat[3] === "?") return subfields(flat);
  if (flat.startsWith("/")) return codes(flat);
  const text = value.split("\n").join(" ").trim();
  return { payee: null, description: text === "" ? null : text };
}

function subfields(flat: string): { payee: string | null; description: string | null } {
  const parts = new Map<number, string>();
  for (const piece of flat.split("?").slice(1)) {
    const code = Number(piece.slice(0, 2));
    if (Number.isInteger(code)) parts.set(code, (parts.get(code) ?? "") + piece.slice(2));
  }
  const name = [32, 33]
    .map((c) => parts.get(c) ?? "")
    .join("")
    .trim();
  let purpose = "";
  for (const c of [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 60, 61, 62, 63]) purpose += parts.get(c) ?? "";
  // SEPA purpose keywords: the text after SVWZ+ is the purpose itself.
  const svwz = purpose.indexOf("SVWZ+");
  const described = (svwz >= 0 ? purpose.slice(svwz + 5) : purpose).trim() || (parts.get(0) ?? "").trim();
  return { payee: name === "" ? null : name, description: described === "" ? null : described };
}

/** Dutch banks' structured :86: "/NAME/Albert Heijn/REMI/Boodschappen/" and the like. */
function codes(flat: string): { payee: string | null; description: string | null } {
  const items = flat.split("/");
  const get = (key: string) => {
    const at = items.indexOf(key);
    return at >= 0 ? (items[at + 1] ?? "").trim() : "";
  };
  const name = get("NAME");
  const remi = get("REMI") || get("USTD");
  return { payee: name === "" ? null : name, description: remi === "" ? null : remi };
}

export function parseMt940(text: string): ParsedStatement {
  const fields = fieldsOf(text);
  if (!fields.some((f) => f.tag === "61") && !fields.some((f) => f.tag.startsWith("60")))
    throw invalidParams("statement", "an MT940 statement", "statement: this MT940 holds no :60F: opening balance and no :61: entries.");
  const rows: StatementEntry[] = [];
  let currency: string | null = null;
  let opening: StatedBalance | null = null;
  let closing: StatedBalance | null = null;
  let current: StatementEntry | null = null;
  for (const f of fields) {
    if (f.tag === "60F" || f.tag === "60M") {
      const b = balanceOf(f.value);
      if (b !== null) {
        currency ??= b.currency;
        if (opening === null) opening = { date: b.date, amount: b.amount };
      }
    } else if (f.tag === "62F" || f.tag === "62M") {
      const b = balanceOf(f.value);
      if (b !== null) closing = { date: b.date, amount: b.amount };
    } else if (f.tag === "61") {
      current = emptyRow(rows.length + 1);
      rows.push(current);
      const e = entryOf(f.value);
      current.date = e.date;
      current.amount = e.amount;
      current.bankId = e.bankRef;
      if (e.error !== null) {
        const [field, ...reason] = e.error.split(": ");
        current.error = { field: field!, reason: reason.join(": ") };
      }
    } else if (f.tag === "86" && current !== null) {
      const d = detailsOf(f.value);
      current.payee = d.payee ?? d.description;
      current.description = d.payee === null ? null : d.description;
      current = null;
    }
  }
  return { format: "mt940", rows, currency, opening, closing, mapping: null };
}
