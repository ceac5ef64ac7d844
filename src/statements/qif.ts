/**
 * QIF (Quicken Interchange Format): one field per line, a letter then its value, records ending in "^".
 * D date, T (or U) signed amount, P payee, M memo; other letters are kept out. A "!Type:" line names the
 * account type; only cash, bank and card accounts hold plain transactions. QIF has no row id and its
 * dates are locale-bound (11/24'26 or 24.11.2026), so the date order and decimal mark are taken from the
 * whole file. No kept npm parser fits (qif2json pulls four packages for 100 lines): this is our own, fuzzed.
 */
import { invalidParams } from "../errors.js";
import { guessDateOrder, parseDate } from "./dates.js";
import { guessDecimal, parseDecimal } from "./numbers.js";
import { emptyRow, type DateOrder, type ParsedStatement, type StatementEntry } from "./types.js";

const PLAIN_TYPES = /^!Type:(Bank|Cash|CCard|Oth A|Oth L)\s*$/i;

interface QifEntry {
  line: number;
  fields: Map<string, string>;
}

export function parseQif(input: string, given: { date_order?: DateOrder; decimal?: "," | "." } = {}): ParsedStatement {
  const records: QifEntry[] = [];
  let current: QifEntry | null = null;
  let plain = false;
  const lines = input.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    if (line.startsWith("!")) {
      if (/^!Type:/i.test(line)) plain = PLAIN_TYPES.test(line);
      current = null;
      return;
    }
    if (!plain) return;
    if (line === "^") {
      current = null;
      return;
    }
    if (current === null) {
      current = { line: i + 1, fields: new Map() };
      records.push(current);
    }
    const letter = line[0]!.toUpperCase();
    // The first of each letter counts; split lines (S/E/$) repeat letters and are not read here.
    if (!current.fields.has(letter)) current.fields.set(letter, line.slice(1).trim());
  });
  // Over the lines already split, not a multiline pattern over the input (linear: issue 41).
  if (records.length === 0 && !lines.some((l) => /^!Type:/i.test(l.trim())))
    throw invalidParams("statement", "a QIF file starting with !Type:", "statement: this QIF file has no !Type: line and no transactions.");
  const dates = records.map((r) => r.fields.get("D") ?? "");
  const amounts = records.map((r) => r.fields.get("T") ?? r.fields.get("U") ?? "");
  const order = given.date_order ?? guessDateOrder(dates, dates.some((d) => d.includes(".")) ? "day_first" : "month_first");
  const decimal = given.decimal ?? guessDecimal(amounts, ".");
  const rows: StatementEntry[] = records.map((r, i) => {
    const row = emptyRow(r.line);
    row.payee = r.fields.get("P") || null;
    row.description = r.fields.get("M") || null;
    if (row.payee === null && row.description !== null) [row.payee, row.description] = [row.description, null];
    row.date = parseDate(dates[i]!, order);
    if (row.date === null) {
      row.error = {
        field: "date",
        reason: dates[i] === "" ? "no D line" : `date ${JSON.stringify(dates[i]!.slice(0, 30))} does not read as ${order.replace("_", "-")}`,
      };
      return row;
    }
    row.amount = parseDecimal(amounts[i]!, decimal);
    if (row.amount === null)
      row.error = { field: "amount", reason: amounts[i] === "" ? "no T line" : `amount ${JSON.stringify(amounts[i]!.slice(0, 30))} is not a number` };
    return row;
  });
  return { format: "qif", rows, currency: null, opening: null, closing: null, mapping: null };
}
