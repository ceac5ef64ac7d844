/**
 * CSV statements, read by csv-parse (quoting, line breaks inside quotes, BOM, ragged preamble rows) and
 * mapped to rows by a column mapping that is detected here and may be corrected by the person:
 *   - the delimiter: the candidate that splits the most rows into the same number (≥ 2) of fields;
 *   - the header row: the first row of that width whose cells are words, not dates or amounts (preamble
 *     lines such as "Kontonummer:;…" before it are skipped); none when the first such row already holds data;
 *   - the columns: by header name in English and German bank layouts, else by content;
 *   - the decimal mark and the date order: over the whole column, never from one row.
 */
import { parse } from "csv-parse/sync";
import { invalidParams } from "../errors.js";
import { guessDateOrder, parseDate } from "./dates.js";
import { guessDecimal, parseDecimal } from "./numbers.js";
import { emptyRow, type CsvMapping, type ParsedStatement, type StatementEntry } from "./types.js";

const DELIMITERS = [",", ";", "\t", "|"] as const;

interface Record_ {
  line: number;
  cells: string[];
}

function readRecords(text: string, delimiter: string): Record_[] {
  const out = parse(text, {
    bom: true,
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    info: true,
  }) as unknown as { record: string[]; info: { lines: number } }[];
  return out.map(({ record, info }) => ({
    line: info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0),
    cells: record.map((c) => c.trim()),
  }));
}

function modeWidth(records: readonly Record_[]): { width: number; count: number } {
  const counts = new Map<number, number>();
  for (const r of records) counts.set(r.cells.length, (counts.get(r.cells.length) ?? 0) + 1);
  let best = { width: 0, count: 0 };
  for (const [width, count] of counts) if (count > best.count || (count === best.count && width > best.width)) best = { width, count };
  return best;
}

const notAStatement = () =>
  invalidParams(
    "statement",
    "a bank statement (CSV, OFX/QFX, CAMT.052/053 or QIF)",
    "statement: this is not a statement this server can read: no CSV rows of two or more columns with dates, and no OFX, CAMT or QIF markers. Send the file's text as exported by the bank.",
  );

/** The first 60 lines: enough to tell the delimiter, and csv-parse reads all it is given (to_line still scans to the end). */
function sampleOf(text: string): string {
  let end = 0;
  for (let i = 0; i < 60 && end >= 0; i++) end = text.indexOf("\n", end + 1);
  return end < 0 ? text : text.slice(0, end + 1);
}

function detectDelimiter(text: string): string {
  const first = detectIn(sampleOf(text));
  // A quoted field with line breaks cut by the sample fails every delimiter: then the whole text decides.
  return (
    first ??
    detectIn(text) ??
    (() => {
      throw notAStatement();
    })()
  );
}

function detectIn(sample: string): string | undefined {
  let best: { delimiter: string; score: number } = { delimiter: ",", score: 0 };
  for (const delimiter of DELIMITERS) {
    let records: Record_[];
    try {
      records = readRecords(sample, delimiter);
    } catch {
      continue;
    }
    const { width, count } = modeWidth(records);
    const score = width >= 2 ? count * 1000 + width : 0;
    if (score > best.score) best = { delimiter, score };
  }
  return best.score === 0 ? undefined : best.delimiter;
}

const looksLikeData = (cell: string): boolean => parseDate(cell, "day_first") !== null || parseDecimal(cell, ",") !== null || parseDecimal(cell, ".") !== null;

// Header names of real bank exports, folded (lower case, letters and digits only). First match wins.
const NAMES: Record<keyof Omit<CsvMapping, "delimiter" | "header_row" | "date_order" | "decimal">, string[]> = {
  date_column: [
    "date",
    "bookingdate",
    "postingdate",
    "posteddate",
    "transactiondate",
    "buchungstag",
    "buchungsdatum",
    "datum",
    "completeddate",
    "startdate",
    "valuedate",
    "valuta",
    "wertstellung",
  ],
  amount_column: ["amount", "betrag", "betrageur", "umsatz", "transactionamount", "amounteur", "amountusd", "montant", "importe", "bedrag", "value"],
  debit_column: ["debit", "debitamount", "withdrawal", "withdrawals", "paidout", "moneyout", "soll", "ausgang", "belastung"],
  credit_column: ["credit", "creditamount", "deposit", "deposits", "paidin", "moneyin", "haben", "eingang", "gutschrift"],
  payee_column: [
    "payee",
    "name",
    "counterparty",
    "merchant",
    "beguenstigterzahlungspflichtiger",
    "begunstigterzahlungspflichtiger",
    "zahlungsempfaenger",
    "empfaenger",
    "auftraggeberbeguenstigter",
    "nameauftraggeberbeguenstigter",
    "namezahlungsbeteiligter",
    "payeepayer",
    "description",
  ],
  description_column: ["memo", "verwendungszweck", "reference", "buchungstext", "narrative", "notes", "purpose", "description", "transactiondetails"],
  id_column: ["id", "transactionid", "fitid", "referencenumber", "bankreference", "transactionreference"],
  balance_column: ["balance", "runningbalance", "saldo", "kontostand", "saldonachbuchung"],
  currency_column: ["currency", "waehrung", "wahrung", "ccy"],
};

const fold = (s: string): string =>
  s
    .toLowerCase()
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/ß/g, "ss")
    .replace(/[^a-z0-9]/g, "");

function findHeader(records: readonly Record_[], width: number): number {
  for (let i = 0; i < Math.min(records.length, 30); i++) {
    const r = records[i]!;
    // Exports that end data rows with a delimiter (and not the header, or the other way round) differ by one.
    if (Math.abs(r.cells.length - width) > 1) continue;
    if (r.cells.some(looksLikeData)) continue;
    const words = r.cells.filter((c) => c !== "").length;
    if (words >= Math.max(2, width / 2)) return i;
  }
  return -1;
}

/** The whole file with the chosen delimiter; csv-parse's refusals (an unclosed quote, a delimiter it cannot use) name the line. */
function readAll(text: string, delimiter: string): Record_[] {
  try {
    return readRecords(text, delimiter);
  } catch (err) {
    const line = (err as { lines?: unknown }).lines;
    const where = typeof line === "number" ? ` at line ${line}` : "";
    throw invalidParams(
      "statement",
      "a CSV that reads with its delimiter",
      `statement: the CSV does not read with the delimiter ${JSON.stringify(delimiter)}${where}. Check mapping.delimiter, or send the file as exported.`,
    );
  }
}

export function detectMapping(
  text: string,
  given: Partial<CsvMapping> = {},
): { mapping: CsvMapping; records: Record_[]; columns: string[]; headerIndex: number } {
  const delimiter = given.delimiter ?? detectDelimiter(text);
  const records = readAll(text, delimiter);
  const { width } = modeWidth(records);
  let headerIndex: number;
  if (given.header_row !== undefined) {
    headerIndex = given.header_row === 0 ? -1 : records.findIndex((r) => r.line === given.header_row);
    if (given.header_row !== 0 && headerIndex < 0)
      throw invalidParams("mapping.header_row", "the line number of the header row", `mapping.header_row: line ${given.header_row} is not a row of this CSV.`);
  } else headerIndex = findHeader(records, width);
  const header = headerIndex >= 0 ? records[headerIndex]!.cells : [];
  const columnCount = Math.max(width, header.length);
  const columns = Array.from({ length: columnCount }, (_, i) => (header[i] ? header[i]! : `#${i + 1}`));
  const data = records.slice(headerIndex + 1).filter((r) => r.cells.length >= Math.min(width, 2) && r.cells.some((c) => c !== ""));

  const used = new Set<string>();
  const byName = (key: keyof typeof NAMES): string | undefined => {
    const folded = columns.map(fold);
    for (const name of NAMES[key]) {
      const i = folded.indexOf(name);
      if (i >= 0 && !used.has(columns[i]!)) return columns[i];
    }
    return undefined;
  };
  const mapping: Partial<CsvMapping> = { delimiter, header_row: headerIndex >= 0 ? records[headerIndex]!.line : 0 };
  const keys = [
    "date_column",
    "id_column",
    "amount_column",
    "debit_column",
    "credit_column",
    "balance_column",
    "currency_column",
    "payee_column",
    "description_column",
  ] as const;
  for (const key of keys) {
    const named = given[key];
    const column = named ?? byName(key);
    if (column !== undefined) {
      mapping[key] = column;
      used.add(column);
    }
  }
  const cellsOf = (column: string | undefined): string[] => {
    const i = column === undefined ? -1 : columns.indexOf(column);
    return i < 0 ? [] : data.map((r) => r.cells[i] ?? "").filter((c) => c !== "");
  };
  // Without a header, the columns come from their content: the first column of dates, the first of amounts
  // after it, the widest text column for the payee.
  if (mapping.date_column === undefined) {
    mapping.date_column = columns.find((c) => {
      const cells = cellsOf(c);
      return cells.length > 0 && cells.filter((x) => parseDate(x, "day_first") ?? parseDate(x, "month_first")).length >= cells.length * 0.8;
    });
  }
  if (mapping.amount_column === undefined && mapping.debit_column === undefined && mapping.credit_column === undefined) {
    mapping.amount_column = columns.find((c) => {
      if (c === mapping.date_column || c === mapping.balance_column) return false;
      const cells = cellsOf(c);
      return cells.length > 0 && cells.every((x) => parseDecimal(x, ",") !== null || parseDecimal(x, ".") !== null);
    });
  }
  if (mapping.payee_column === undefined && headerIndex < 0) {
    const taken = new Set(Object.values(mapping));
    mapping.payee_column = columns.find((c) => !taken.has(c) && cellsOf(c).some((x) => !looksLikeData(x)));
  }
  const missing = (field: string, what: string) =>
    invalidParams(
      field,
      what,
      `${field}: could not tell which column holds ${what}. Columns: ${columns.map((c) => JSON.stringify(c)).join(", ")}. Send mapping.${field.replace("mapping.", "")} naming it.`,
    );
  const anyDate = records.some((r) => r.cells.some((c) => parseDate(c, "day_first") !== null || parseDate(c, "month_first") !== null));
  if (!anyDate) throw notAStatement();
  if (mapping.date_column === undefined) throw missing("mapping.date_column", "the booking date");
  if (mapping.amount_column === undefined && mapping.debit_column === undefined && mapping.credit_column === undefined)
    throw missing("mapping.amount_column", "the amount (or mapping.debit_column and mapping.credit_column)");
  const amountSamples = [
    ...cellsOf(mapping.amount_column),
    ...cellsOf(mapping.debit_column),
    ...cellsOf(mapping.credit_column),
    ...cellsOf(mapping.balance_column),
  ];
  mapping.decimal = given.decimal ?? guessDecimal(amountSamples, delimiter === "," ? "." : ",");
  mapping.date_order =
    given.date_order ?? guessDateOrder(cellsOf(mapping.date_column), delimiter === "," && mapping.decimal === "." ? "month_first" : "day_first");
  for (const key of keys) {
    const column = mapping[key];
    if (column !== undefined && !columns.includes(column))
      throw invalidParams(
        `mapping.${key}`,
        "a column of the header row",
        `mapping.${key}: there is no column ${JSON.stringify(column)}. Columns: ${columns.map((c) => JSON.stringify(c)).join(", ")}.`,
      );
  }
  return { mapping: mapping as CsvMapping, records: data, columns, headerIndex };
}

export function parseCsv(text: string, given: Partial<CsvMapping> = {}): ParsedStatement {
  const { mapping, records, columns } = detectMapping(text, given);
  const at = (r: Record_, column: string | undefined): string => (column === undefined ? "" : (r.cells[columns.indexOf(column)] ?? ""));
  const rows: StatementEntry[] = [];
  let closing: { date: string; amount: string } | null = null;
  for (const r of records) {
    const row = emptyRow(r.line);
    rows.push(row);
    const dateText = at(r, mapping.date_column);
    row.date = parseDate(dateText, mapping.date_order);
    row.payee = at(r, mapping.payee_column) || null;
    row.description = mapping.description_column === mapping.payee_column ? null : at(r, mapping.description_column) || null;
    if (row.payee === null && row.description !== null) [row.payee, row.description] = [row.description, null];
    row.bankId = at(r, mapping.id_column) || null;
    row.currency = at(r, mapping.currency_column).toUpperCase() || null;
    if (row.date === null) {
      row.error = {
        field: "date",
        reason: dateText === "" ? "no date" : `date ${JSON.stringify(dateText.slice(0, 40))} does not read as ${mapping.date_order.replace("_", "-")}`,
      };
      continue;
    }
    const amount = readAmount(r, mapping, at);
    if ("error" in amount) {
      row.error = { field: "amount", reason: amount.error };
      continue;
    }
    row.amount = amount.value;
    const balance = mapping.balance_column === undefined ? null : parseDecimal(at(r, mapping.balance_column), mapping.decimal);
    // The statement's closing balance is the balance stated on its latest row (banks list either way round).
    if (balance !== null && (closing === null || row.date >= closing.date)) closing = { date: row.date, amount: balance };
  }
  return { format: "csv", rows, currency: null, opening: null, closing, mapping };
}

function readAmount(r: Record_, mapping: CsvMapping, at: (r: Record_, c: string | undefined) => string): { value: string } | { error: string } {
  if (mapping.amount_column !== undefined) {
    const text = at(r, mapping.amount_column);
    const value = parseDecimal(text, mapping.decimal);
    return value === null
      ? { error: `amount ${JSON.stringify(text.slice(0, 40))} does not read as a number with decimal ${JSON.stringify(mapping.decimal)}` }
      : { value };
  }
  const debitText = at(r, mapping.debit_column);
  const creditText = at(r, mapping.credit_column);
  const debit = debitText === "" ? null : parseDecimal(debitText, mapping.decimal);
  const credit = creditText === "" ? null : parseDecimal(creditText, mapping.decimal);
  if (debitText !== "" && debit === null) return { error: `debit ${JSON.stringify(debitText.slice(0, 40))} does not read as a number` };
  if (creditText !== "" && credit === null) return { error: `credit ${JSON.stringify(creditText.slice(0, 40))} does not read as a number` };
  const magnitude = (v: string | null) => (v === null ? null : v.replace(/^-/, ""));
  const out = magnitude(debit);
  const inn = magnitude(credit);
  if (out !== null && !/^[0.]+$/.test(out)) return { value: `-${out}` };
  if (inn !== null) return { value: inn };
  return out !== null ? { value: out } : { error: "neither debit nor credit is filled in" };
}
