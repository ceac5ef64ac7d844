/**
 * CSV statements, read by csv-parse (quoting, line breaks inside quotes, BOM, ragged preamble rows) and
 * mapped to rows by a column mapping that is detected here and may be corrected by the person:
 *   - the delimiter: the candidate that splits the most rows into the same number (≥ 2) of fields;
 *   - the header row: the first row of that width whose cells are words, not dates or amounts (preamble
 *     lines such as "Kontonummer:;…" before it are skipped); none when the first such row already holds data;
 *   - the columns: by header name in English and German bank layouts, else by content;
 *   - the decimal mark and the date order: over the whole column, never from one row.
 */
import { createHash } from "node:crypto";
import { parse } from "csv-parse/sync";
import { invalidParams } from "../errors.js";
import { currencyInCell, withoutCurrency } from "./cell-currency.js";
import { chooseColumnsByContent, isWordyCell, moreTextColumns, namesAKind, type UnsureColumn } from "./columns-by-content.js";
import { readPreamble } from "./csv-preamble.js";
import { rowKindsOf } from "./csv-row-kinds.js";
import { balanceKindOf, isStatusColumn, isTotalLine, notBookedOf, sectionOf } from "./row-kinds.js";
import { checkRunningBalance, decimalOf, signsByBalance, units, type RunningRow } from "./running-balance.js";
import { resolveBalances, type FoundBalance } from "./stated-balances.js";
import { directionOf, isIndicatorColumn, settleDirection, unsignedAsk, type DirectionInput } from "./csv-sign.js";
import { compactOrder, dateRange, guessDateOrder, parseDate } from "./dates.js";
import { guessDecimal, isNoAmount, parseDecimal } from "./numbers.js";
import { emptyRow, type CsvMapping, type DateOrder, type DirectionAsk, type ParsedStatement, type StatedBalance, type StatementEntry } from "./types.js";

/** What the caller knows of the wallet that helps read a file: a card's export may list purchases as positive. */
export interface CsvHints {
  card?: boolean;
}

const DELIMITERS = [",", ";", "\t", "|"] as const;

interface Record_ {
  line: number;
  cells: string[];
  /** The state a section heading above the row gives it ("Pending Transactions"), when not booked. */
  section?: string;
}

function readRecords(text: string, delimiter: string, fromLine = 1): Record_[] {
  const out = parse(text, {
    bom: true,
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    info: true,
    from_line: fromLine,
  }) as unknown as { record: string[]; info: { lines: number } }[];
  return out.map(({ record, info }) => ({
    line: info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0),
    cells: record.map(cellText),
  }));
}

/** A cell's text: trimmed, and out of a pair of single quotes that wrap it whole (FNB's ' 2 Nov 2026', 'POS Purchase'). */
function cellText(cell: string): string {
  const c = cell.trim();
  return /^'[^']*'$/.test(c) ? c.slice(1, -1).trim() : c;
}

/** Each column name's first position (what columns.indexOf answers), in one pass. */
function positionsOf(columns: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  columns.forEach((c, i) => {
    if (!out.has(c)) out.set(c, i);
  });
  return out;
}

function modeWidth(records: readonly Record_[]): { width: number; count: number } {
  const counts = new Map<number, number>();
  for (const r of records) counts.set(r.cells.length, (counts.get(r.cells.length) ?? 0) + 1);
  let best = { width: 0, count: 0 };
  // The width that holds the most cells: many short preamble lines ("IBAN;…", "Saldo;…") must not outvote
  // the rows.
  for (const [width, count] of counts)
    if (count * width > best.count * best.width || (count * width === best.count * best.width && width > best.width)) best = { width, count };
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
    // The delimiter that splits the most cells in rows of one width (a decimal comma splits a ";" file too, into fewer).
    const score = width >= 2 ? count * width * 1000 + width : 0;
    if (score > best.score) best = { delimiter, score };
  }
  return best.score === 0 ? undefined : best.delimiter;
}

// A date in either order: "11/18/2026" is no header word (read day-first only, a row of it was taken for the
// header and the rows above it dropped, issue 48).
const looksLikeData = (cell: string): boolean =>
  parseDate(cell, "day_first") !== null || parseDate(cell, "month_first") !== null || parseDecimal(cell, ",") !== null || parseDecimal(cell, ".") !== null;

/** Header names of real bank exports per mapping key, folded (lower case, letters and digits only). First match wins. */
export type Vocabulary = Record<
  keyof Omit<CsvMapping, "delimiter" | "header_row" | "date_order" | "decimal" | "purchases_positive" | "sign_out">,
  readonly string[]
>;

const NAMES: Vocabulary = {
  date_column: [
    "date",
    "bookingdate",
    "postingdate",
    "posteddate",
    "transactiondate",
    "buchungstag",
    "buchungsdatum",
    "datum",
    "transdate",
    "buchung",
    "dateop",
    "datacontabile",
    "dateoperation",
    "dateope",
    "fechaoperacion",
    "fecha",
    "dataoperazione",
    "boekdatum",
    "completeddate",
    "startdate",
    "valuedate",
    "valuta",
    "wertstellung",
  ],
  amount_column: ["amount", "betrag", "umsatz", "umsatzineur", "transactionamount", "montant", "montantoperation", "importe", "bedrag", "importo", "value"],
  sign_column: ["afbij", "sollhaben", "sh", "debitcredit", "creditdebit", "cd", "dc", "drcr", "indicator"],
  // Money out and in, unsigned, in the languages of the exports read (Italian Uscite/Entrate and Dare/Avere, Spanish Cargo/Abono, Polish Obciążenia/Uznania, Nordic Debet/Kredit).
  debit_column: [
    "debit",
    "debitamount",
    "withdrawal",
    "withdrawals",
    "paidout",
    "moneyout",
    "addebiti",
    "addebito",
    "uscite",
    "dare",
    "soll",
    "ausgang",
    "belastung",
    "debito",
    "cargo",
    "cargos",
    "debet",
    "obciazenia",
    "wydatki",
  ],
  credit_column: [
    "credit",
    "creditamount",
    "deposit",
    "deposits",
    "paidin",
    "moneyin",
    "accrediti",
    "accredito",
    "entrate",
    "avere",
    "haben",
    "eingang",
    "gutschrift",
    "credito",
    "abono",
    "abonos",
    "kredit",
    "uznania",
    "wplywy",
  ],
  payer_column: ["zahlungspflichtiger", "zahlungspflichtige", "payer", "payername", "debtor", "betaler"],
  payee_column: [
    "payee",
    "zahlungsempfaengerin",
    "payeename",
    "partnername",
    "supplierfound",
    "descrizioneestesa",
    "auftraggeberempfaenger",
    "beguenstigterauftraggeber",
    "naamtegenpartij",
    "naamomschrijving",
    "libelle",
    "libelleoperation",
    "concepto",
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
    // Consorsbank's "Sender / Empfänger": the other party of either direction.
    "senderempfaenger",
    "description",
  ],
  description_column: [
    "memo",
    "verwendungszweck",
    "reference",
    "buchungstext",
    "narrative",
    "notes",
    "purpose",
    "description",
    "transactiondetails",
    "omschrijving",
    "mededelingen",
    "omschrijving1",
    "detail",
    "descrizione",
    "paymentreference",
    "label",
    "libellecourt",
  ],
  id_column: ["id", "transactionid", "transferwiseid", "fitid", "referencenumber", "bankreference", "transactionreference", "volgnr"],
  balance_column: [
    "balance",
    "runningbalance",
    "runningbal",
    "saldo",
    "kontostand",
    "saldonachbuchung",
    "saldonatrn",
    "saldonamutatie",
    "solde",
    "accountbalance",
  ],
  currency_column: ["currency", "waehrung", "wahrung", "ccy", "munt", "devise", "divisa"],
  // A fee beside the amount (Revolut's "Fee", PayPal's "Fee"): balance = previous + amount − fee.
  fee_column: ["fee", "fees", "gebuehr", "gebuehren", "entgelt", "frais", "comision", "commissione", "commission", "charges"],
};

/** The detector's own vocabulary; the leave-one-bank-out test (test/statements/columns-by-content.test.ts) withholds words of it. */
export const VOCABULARY: Vocabulary = NAMES;

/**
 * Whether a folded header cell is the vocabulary's name: the name alone or followed by a currency code
 * ("Amount (GBP)", "Betrag (EUR)", "Balance USD"), or a currency symbol, which folding drops ("Betrag (€)").
 */
export const namesColumn = (folded: string, name: string): boolean =>
  folded === name || (folded.length === name.length + 3 && folded.startsWith(name) && !/\d/.test(folded.slice(-3)));

export const fold = (s: string): string =>
  s
    .toLowerCase()
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/ß/g, "ss")
    // Other accents go ("Libellé opération" is "libelleoperation").
    .normalize("NFKD")
    .replace(/[^a-z0-9]/g, "");

/**
 * The header: the first row of the file's width whose cells are words, and of those the first that names a
 * date column, so that a preamble table ("Description,,Summary Amt." above Bank of America's rows) is not
 * taken for it.
 */
function findHeader(records: readonly Record_[], width: number, vocabulary: Vocabulary = NAMES): number {
  const candidates = headerCandidates(records, width);
  return candidates.find((i) => records[i]!.cells.some((c) => vocabulary.date_column.includes(fold(c)))) ?? candidates[0] ?? -1;
}

function headerCandidates(records: readonly Record_[], width: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.min(records.length, 30); i++) {
    const r = records[i]!;
    // Exports that end data rows with a delimiter (and not the header, or the other way round) differ by one.
    if (Math.abs(r.cells.length - width) > 1) continue;
    if (r.cells.some(looksLikeData)) continue;
    const words = r.cells.filter((c) => c !== "").length;
    if (words >= Math.max(2, width / 2)) out.push(i);
  }
  return out;
}

/** The whole file with the chosen delimiter; csv-parse's refusals (an unclosed quote, a delimiter it cannot use) name the line. */
/**
 * Every record of the file. csv-parse takes the first record's width as the expected one, and with
 * relax_column_count still builds an error object (a JSON copy of its options and the record) for every
 * record of another width: after a preamble of narrower lines, that was every row, a third of a
 * 5,000-row preview. So the lines before the first record of the rows' width are read on their own
 * (from the first lines), and the rest from that record on (from_line keeps the file's line numbers).
 */
function readWhole(text: string, delimiter: string): Record_[] {
  const sample = sampleOf(text);
  if (sample.length === text.length) return readRecords(text, delimiter);
  let head: Record_[];
  try {
    head = readRecords(sample, delimiter);
  } catch {
    return readRecords(text, delimiter);
  }
  const { width } = modeWidth(head);
  const start = head.findIndex((r) => r.cells.length === width);
  if (start <= 0) return readRecords(text, delimiter);
  return [...head.slice(0, start), ...readRecords(text, delimiter, head[start]!.line)];
}

function readAll(text: string, delimiter: string): Record_[] {
  try {
    return readWhole(text, delimiter);
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

export interface DetectedCsv {
  mapping: CsvMapping;
  records: Record_[];
  columns: string[];
  headerIndex: number;
  /** Lines before the header and narrow undated lines after the data ("Alter Kontostand";"…"): key-value pairs. */
  preamble: string[][];
  /** Mapping keys taken by default or chosen by content with doubt, not told by the file. */
  unsure: ("date_order" | UnsureColumn | "sign_out")[];
  /** The column whose words may tell money out from in, when the person must say which (unsure "sign_out"). */
  direction: DirectionAsk | null;
  /** Unsigned amounts nothing signs but a running balance: what to ask where the balance does not tell. */
  byBalance: DirectionAsk | null;
  /** The given date order spreads the rows over months where the other keeps them within one. */
  apart: ParsedStatement["datesApart"] | null;
  /** The layout's fingerprint (layoutFingerprint), null when the file does not read without a mapping. */
  fingerprint: string | null;
}

/**
 * A CSV layout's fingerprint, for a mapping remembered per wallet (docs/import.md, "A mapping remembered
 * per wallet"): a SHA-256 of the delimiter, the header row's cells folded (or the column count of a file
 * without one) and the keys of the preamble's lines (their first cell, letters only: "Kontostand vom
 * 24.11.2026:" is "kontostandvom"), never their values. Read as the file reads without a mapping, so the
 * same layout has the same fingerprint whatever mapping a call sends. A file without a header is told by
 * its width and what each column holds (columnKinds): two bank exports of three columns in another order
 * are two layouts (docs/decisions.md#remembered-mapping-and-evidence).
 */
function fingerprintOf(delimiter: string, records: readonly Record_[], headerIndex: number, width: number): string {
  const header = headerIndex >= 0 ? records[headerIndex]!.cells.map(fold) : [`#${width}`, ...columnKinds(records, width)];
  const keys = records
    .slice(0, Math.max(headerIndex, 0))
    .map((r) => fold(r.cells.find((c) => c !== "") ?? "").replace(/[^a-z]/g, ""))
    .filter((k) => k !== "");
  return createHash("sha256")
    .update(JSON.stringify({ delimiter, header, preamble: keys }))
    .digest("hex");
}

/** Rows a headerless layout's column kinds are read from: enough to outvote a stray cell, bounded for a wide file. */
const KIND_SAMPLE_ROWS = 20;

/**
 * What each column of a headerless file holds, by the most of its first full-width rows' non-empty cells:
 * "date", "number", "text", or "empty". Values never enter the fingerprint, only these kinds.
 */
function columnKinds(records: readonly Record_[], width: number): string[] {
  const sample = records.filter((r) => r.cells.length === width).slice(0, KIND_SAMPLE_ROWS);
  const kindOf = (c: string) =>
    parseDate(c, "day_first") !== null || parseDate(c, "month_first") !== null
      ? "date"
      : parseDecimal(withoutCurrency(c), ",") !== null || parseDecimal(withoutCurrency(c), ".") !== null
        ? "number"
        : "text";
  return Array.from({ length: width }, (_, i) => {
    const votes = new Map<string, number>();
    for (const r of sample) {
      const cell = r.cells[i]!;
      if (cell === "") continue;
      const kind = kindOf(cell);
      votes.set(kind, (votes.get(kind) ?? 0) + 1);
    }
    return [...votes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? "empty";
  });
}

/** The layout fingerprint of a CSV read without a mapping; null when it does not read so. */
function layoutFingerprint(text: string): string | null {
  try {
    const delimiter = detectDelimiter(text);
    const records = readAll(text, delimiter);
    const { width } = modeWidth(records);
    return fingerprintOf(delimiter, records, findHeader(records, width), width);
  } catch {
    return null;
  }
}

export function detectMapping(text: string, given: Partial<CsvMapping> = {}, hints: CsvHints = {}, vocabulary: Vocabulary = NAMES): DetectedCsv {
  const delimiter = given.delimiter ?? detectDelimiter(text);
  const records = readAll(text, delimiter);
  const { width } = modeWidth(records);
  let headerIndex: number;
  if (given.header_row !== undefined) {
    headerIndex = given.header_row === 0 ? -1 : records.findIndex((r) => r.line === given.header_row);
    if (given.header_row !== 0 && headerIndex < 0)
      throw invalidParams("mapping.header_row", "the line number of the header row", `mapping.header_row: line ${given.header_row} is not a row of this CSV.`);
  } else headerIndex = findHeader(records, width, vocabulary);
  const header = headerIndex >= 0 ? records[headerIndex]!.cells : [];
  const columnCount = Math.max(width, header.length);
  // A name the header repeats ("(SGD)" over UOB's withdrawals and deposits, ING's two "Währung") names its first
  // column; each later one is told by its position too, so that each column can be read and named in a mapping.
  const columns = Array.from({ length: columnCount }, (_, i) => {
    const name = header[i];
    if (!name) return `#${i + 1}`;
    return header.indexOf(name) < i ? `${name} #${i + 1}` : name;
  });
  const preamble = records.slice(0, Math.max(headerIndex, 0)).map((r) => r.cells);
  const fingerprint =
    given.delimiter === undefined && given.header_row === undefined ? fingerprintOf(delimiter, records, headerIndex, width) : layoutFingerprint(text);
  const data: Record_[] = [];
  // A heading line of one cell gives the rows under it their state ("Pending Transactions", "Vorgemerkte
  // Umsätze"); the last one before the header counts too. The header repeated above a section is no row.
  const headingOf = (r: Record_) => {
    const filled = r.cells.filter((c) => c !== "");
    return filled.length === 1 ? sectionOf(filled[0]!) : null;
  };
  let section = records
    .slice(0, Math.max(headerIndex, 0))
    .map(headingOf)
    .reduce<string | null>((last, h) => h ?? last, null);
  const headerKey = header.join("\u0000");
  for (const r of records.slice(headerIndex + 1)) {
    const heading = headingOf(r);
    if (heading !== null) {
      section = heading;
      continue;
    }
    if (headerIndex >= 0 && r.cells.join("\u0000") === headerKey) continue;
    if (section !== null && section !== "booked") r.section = section;
    if (r.cells.length < Math.min(width, 2) || !r.cells.some((c) => c !== "")) continue;
    // A narrow line without a date after the rows is a trailer ("Alter Kontostand";"4.000,00 EUR"), not a row.
    if (width >= 4 && r.cells.length * 2 <= width && parseDate(r.cells[0]!, "day_first") === null && parseDate(r.cells[0]!, "month_first") === null)
      preamble.push(r.cells);
    else data.push(r);
  }

  const used = new Set<string>();
  const byName = (key: keyof Vocabulary, within = false): string | undefined => {
    const folded = columns.map(fold);
    for (const name of vocabulary[key]) {
      // Within: a name of five letters or more inside one header only ("Withdrawal Amt.", "Closing Balance";
      // "Libellé court" beside "Libellé opération" tells nothing).
      const match = (f: string) => (within ? name.length >= 5 && f.includes(name) : namesColumn(f, name));
      const i = folded.findIndex((f, at) => !used.has(columns[at]!) && match(f));
      if (i >= 0 && (!within || folded.filter(match).length === 1)) return columns[i];
    }
    return undefined;
  };
  // Each column's position, looked up once per name: columns.indexOf per column made a wide file's
  // detection quadratic in its columns (issue 51: 128,018 characters took 6.8 s).
  const position = positionsOf(columns);
  const cellsOf = (column: string | undefined): string[] => {
    const i = column === undefined ? -1 : (position.get(column) ?? -1);
    return i < 0 ? [] : data.map((r) => r.cells[i] ?? "").filter((c) => c !== "");
  };
  const mapping: Partial<CsvMapping> = { delimiter, header_row: headerIndex >= 0 ? records[headerIndex]!.line : 0 };
  const keys = [
    "date_column",
    "id_column",
    "amount_column",
    "sign_column",
    "debit_column",
    "credit_column",
    "balance_column",
    "fee_column",
    "currency_column",
    "payer_column",
    "payee_column",
    "description_column",
  ] as const;
  for (const key of keys) {
    const named = given[key];
    const column = named ?? byName(key);
    if (named === undefined && key === "sign_column" && column !== undefined && !isIndicatorColumn(cellsOf(column))) continue;
    if (column !== undefined) {
      mapping[key] = column;
      used.add(column);
    }
  }
  // Then the names inside longer headers, for the keys still open (money out and in before the amount, so
  // that "Debit Amount" is not taken for a signed amount); the cells confirm them (columns-by-content.ts).
  for (const key of [
    "date_column",
    "debit_column",
    "credit_column",
    "amount_column",
    "balance_column",
    "payer_column",
    "payee_column",
    "description_column",
  ] as const) {
    if (mapping[key] !== undefined || given[key] !== undefined) continue;
    const column = byName(key, true);
    if (column !== undefined) {
      mapping[key] = column;
      used.add(column);
    }
  }
  // An amount column that the bank leaves empty (Deutsche Bank fills Soll and Haben instead) is none.
  if (given.amount_column === undefined && mapping.amount_column !== undefined && cellsOf(mapping.amount_column).length === 0) {
    used.delete(mapping.amount_column);
    delete mapping.amount_column;
  }
  // What the names did not tell (or told wrong), the cells do: columns-by-content.ts.
  const byContent = chooseColumnsByContent({
    columns,
    rows: data.map((r) => r.cells),
    mapping,
    given,
    decimalFallback: given.decimal ?? (delimiter === "," ? "." : ","),
  });
  for (const column of Object.values(mapping)) if (typeof column === "string") used.add(column);
  // A column of status words ("Contabilizado", "Programada") is the row's state, never its counterparty or
  // purpose: csv-row-kinds.ts reads it for the rows not booked.
  for (const key of ["payee_column", "payer_column", "description_column"] as const)
    if (given[key] === undefined && mapping[key] !== undefined && isStatusColumn(cellsOf(mapping[key]))) {
      used.delete(mapping[key]!);
      delete mapping[key];
    }
  // An indicator column without a telling name is found by its content (every row S or H, Af or Bij …).
  if (mapping.sign_column === undefined && mapping.amount_column !== undefined && given.sign_column === undefined) {
    mapping.sign_column = columns.find((c) => !used.has(c) && c !== mapping.date_column && isIndicatorColumn(cellsOf(c)));
    if (mapping.sign_column === undefined) delete mapping.sign_column;
    else used.add(mapping.sign_column);
  }
  const missing = (field: string, what: string) =>
    invalidParams(
      field,
      what,
      `${field}: could not tell which column holds ${what}. Columns: ${columns.map((c) => JSON.stringify(c)).join(", ")}. Send mapping.${field.replace("mapping.", "")} naming it.`,
    );
  const anyDate = records.some((r) => r.cells.some((c) => parseDate(c, "day_first") !== null || parseDate(c, "month_first") !== null));
  if (!anyDate) throw notAStatement();
  // Named as the tool's mapping names them (mapping.amount, not the reader's amount_column): the person sends that key.
  if (mapping.date_column === undefined) throw missing("mapping.date", "the booking date");
  if (mapping.amount_column === undefined && mapping.debit_column === undefined && mapping.credit_column === undefined)
    throw missing("mapping.amount", "the amount (or mapping.debit and mapping.credit)");
  const amountSamples = [
    ...cellsOf(mapping.amount_column),
    ...cellsOf(mapping.debit_column),
    ...cellsOf(mapping.credit_column),
    ...cellsOf(mapping.balance_column),
  ].map(withoutCurrency);
  mapping.decimal = given.decimal ?? guessDecimal(amountSamples, delimiter === "," ? "." : ",");
  // A card's export that lists purchases as positive (American Express, Discover): most amounts positive
  // in a card wallet, with no indicator column. The preview shows it; the person can send it back false.
  const purchasesPositive =
    given.purchases_positive ??
    (hints.card === true &&
      mapping.amount_column !== undefined &&
      mapping.sign_column === undefined &&
      // sign_out "" is the person's "every row is money in": no amount is negated.
      given.sign_out === undefined &&
      (() => {
        const values = cellsOf(mapping.amount_column).map((c) => parseDecimal(c, mapping.decimal!));
        const negative = values.filter((v) => v !== null && v.startsWith("-")).length;
        return values.length - negative > negative;
      })());
  if (purchasesPositive) mapping.purchases_positive = true;
  // Said false by the person: kept, so that a mapping remembered from it says so too.
  else if (given.purchases_positive === false) mapping.purchases_positive = false;
  const dates = cellsOf(mapping.date_column);
  mapping.date_order =
    given.date_order ?? guessDateOrder(dates, compactOrder(dates) ?? (delimiter === "," && mapping.decimal === "." ? "month_first" : "day_first"));
  // No day above 12 and no ISO date: the order is the default for the file's delimiter, a guess, when it
  // matters (a date that reads otherwise in the other order; "03 Nov 2026" and "05/05/2026" do not).
  const guessed = guessDateOrder(dates, "day_first") !== guessDateOrder(dates, "month_first");
  // An order the person (or a remembered mapping) gave that spreads a month's rows over months, where the
  // other keeps them within one (a day-first statement answered month-first): the commit waits for them.
  const compact = compactOrder(dates);
  const apart =
    given.date_order !== undefined && given.date_order !== "iso" && compact !== null && compact !== given.date_order
      ? datesApartOf(dates, given.date_order, compact)
      : null;
  const matters = dates.some((d) => parseDate(d, "day_first") !== parseDate(d, "month_first"));
  const amountAt = mapping.amount_column === undefined ? -1 : (position.get(mapping.amount_column) ?? -1);
  const withAmount = data.filter((r) => (r.cells[amountAt] ?? "") !== "");
  const input: DirectionInput = {
    columns,
    used,
    mapping,
    given,
    cellsOf,
    cellsBesideAmounts: (column) => withAmount.map((r) => r.cells[position.get(column) ?? -1] ?? ""),
    amounts: cellsOf(mapping.amount_column).map((c) => parseDecimal(withoutCurrency(c), mapping.decimal!)),
    isNumberOrDate: (c) =>
      parseDecimal(c, ",") !== null || parseDecimal(c, ".") !== null || parseDate(c, "day_first") !== null || parseDate(c, "month_first") !== null,
    isStatus: isStatusColumn,
  };
  const direction = settleDirection(input);
  // Unsigned amounts beside a running balance: the balance tells the signs, or the question is asked (parseCsv).
  const byBalance = mapping.balance_column !== undefined && given.sign_out === undefined ? unsignedAsk(input) : null;
  const unsure = [
    ...(given.date_order === undefined && guessed && matters ? (["date_order"] as const) : []),
    ...byContent.unsure,
    ...(direction === null ? [] : (["sign_out"] as const)),
  ];
  for (const key of keys) {
    const column = mapping[key];
    if (column !== undefined && !columns.includes(column))
      throw invalidParams(
        `mapping.${key.replace(/_column$/, "")}`,
        "a column of the header row",
        `mapping.${key.replace(/_column$/, "")}: there is no column ${JSON.stringify(column)}. Columns: ${columns.map((c) => JSON.stringify(c)).join(", ")}.`,
      );
  }
  return { mapping: mapping as CsvMapping, records: data, columns, headerIndex, preamble, unsure: [...unsure], direction, byBalance, fingerprint, apart };
}

/**
 * Text the mapping does not read is kept in the description, never lost (issue 48, third probe): the cells of
 * a third varied text column (moreTextColumns), and, on a row with no payee and no purpose, the words of any
 * other column that names no kind (PKO BP's fee row, whose only text stands in "Opis transakcji").
 */
function textKeeper(columns: readonly string[], records: readonly Record_[], mapping: Partial<CsvMapping>): (r: Record_, row: StatementEntry) => void {
  const more = moreTextColumns(
    columns,
    records.map((r) => r.cells),
    mapping,
  ).map((c) => columns.indexOf(c));
  const mapped = new Set(Object.values(mapping).filter((v): v is string => typeof v === "string"));
  const unmapped = columns.flatMap((c, i) => (mapped.has(c) || namesAKind(c) ? [] : [i]));
  return (r, row) => {
    // A cell already said, or one that only repeats the counterparty behind a booking word (KBC's "EUROPESE
    // OVERSCHRIJVING NAAR <payee>"), adds nothing of its own.
    const has = (cell: string) =>
      [row.payee, row.description].some((t) => t !== null && t.toLowerCase().includes(cell.toLowerCase())) ||
      (row.payee !== null && cell.toLowerCase().includes(row.payee.toLowerCase()));
    const own = (indexes: readonly number[]) => indexes.map((i) => (r.cells[i] ?? "").trim()).filter((c) => c !== "" && !has(c));
    let extra = own(more);
    if (extra.length === 0 && row.payee === null && row.description === null) extra = own(unmapped).filter(isWordyCell);
    if (extra.length === 0) return;
    if (row.payee === null) row.payee = extra.shift()!;
    if (extra.length > 0) row.description = [row.description, ...extra].filter((t) => t !== null).join(" ");
  };
}

export function parseCsv(text: string, given: Partial<CsvMapping> = {}, hints: CsvHints = {}, vocabulary: Vocabulary = NAMES): ParsedStatement {
  const detected = detectMapping(text, given, hints, vocabulary);
  const { mapping, records, columns, preamble, unsure, byBalance, fingerprint } = detected;
  let direction = detected.direction;
  const position = positionsOf(columns);
  const at = (r: Record_, column: string | undefined): string => (column === undefined ? "" : (r.cells[position.get(column) ?? -1] ?? ""));
  const kinds = rowKindsOf(records, columns, mapping);
  const keepText = textKeeper(columns, records, mapping);
  const rows: StatementEntry[] = [];
  const balances: { date: string; amount: string }[] = [];
  const running: RunningRow[] = [];
  const statedRows: FoundBalance[] = [];
  for (const r of records) {
    const row = emptyRow(r.line);
    const dateText = at(r, mapping.date_column);
    // A row that names a balance ("Anfangssaldo", "Endsaldo", "Beginning balance as of …") and nothing else
    // states it; it is no transaction (issue 48).
    const named = kinds.balanceNamed(r);
    // An available balance ("Saldo disponibile") is no transaction, and not the ledger's balance either.
    if (named === "available") continue;
    if (named !== null) {
      const read = readAmount(r, mapping, at);
      const amount = "value" in read ? read.value : mapping.balance_column === undefined ? null : parseDecimal(at(r, mapping.balance_column), mapping.decimal);
      if (amount !== null) {
        // Dated by its date cell, else by another date the line holds ("Kontostand;30.11.2026;…").
        const date = parseDate(dateText, mapping.date_order) ?? r.cells.map((c) => parseDate(c, mapping.date_order)).find((d) => d !== null) ?? null;
        statedRows.push({ kind: named, date, amount });
        continue;
      }
    }
    rows.push(row);
    row.date = parseDate(dateText, mapping.date_order);
    row.description = mapping.description_column === mapping.payee_column ? null : at(r, mapping.description_column) || null;
    row.bankId = at(r, mapping.id_column) || null;
    row.currency = at(r, mapping.currency_column).toUpperCase() || null;
    // Not booked: by the status column, or by a word where the booking day would be (Nordea's "Reserverat").
    const notBooked = kinds.notBooked(r) ?? r.section ?? (row.date === null ? notBookedOf(dateText) : null);
    if (notBooked !== null) row.notBooked = notBooked;
    // A line that sums rows up, undated ("Total Pending Check and other Credit(s)"), moves no money.
    if (row.date === null && isTotalLine(r.cells.find((c) => c !== "") ?? "")) {
      rows.pop();
      continue;
    }
    if (row.date === null && notBooked === null) {
      row.payee = at(r, mapping.payee_column) || at(r, mapping.payer_column) || null;
      row.error = {
        field: "date",
        reason: dateText === "" ? "no date" : `date ${JSON.stringify(dateText.slice(0, 40))} does not read as ${mapping.date_order.replace("_", "-")}`,
      };
      row.holdsMoney = kinds.holdsMoney(r);
      continue;
    }
    // A line with a balance and no amount ("Beginning balance as of 11/01/2026" in Bank of America's rows) states
    // a balance; it is no transaction.
    // A row with text of its own (a payee, a purpose) and no amount is a transaction that does not read, never a balance.
    const amountCells = [mapping.amount_column, mapping.debit_column, mapping.credit_column].map((c) => at(r, c));
    const text = [mapping.payee_column, mapping.payer_column, mapping.description_column].map((c) => at(r, c)).find((c) => c !== "") ?? "";
    if (
      mapping.balance_column !== undefined &&
      amountCells.every((c) => c === "") &&
      at(r, mapping.balance_column) !== "" &&
      (text === "" || balanceKindOf(text) !== null)
    ) {
      rows.pop();
      continue;
    }
    const amount = readAmount(r, mapping, at, kinds.feeSigned);
    // The counterparty: the payer of money in, the payee of money out, where the bank splits them.
    const out = "value" in amount && amount.value.startsWith("-");
    // Where both are mapped, the other column names the account holder: an empty one falls back to the purpose.
    const split = mapping.payer_column !== undefined && mapping.payee_column !== undefined;
    const [first, second] = out ? [mapping.payee_column, mapping.payer_column] : [mapping.payer_column, mapping.payee_column];
    row.payee = at(r, first) || (split ? "" : at(r, second)) || null;
    if (row.payee === null && row.description !== null) [row.payee, row.description] = [row.description, null];
    if ("error" in amount) {
      row.error = { field: "amount", reason: amount.error };
      row.holdsMoney = kinds.holdsMoney(r);
      continue;
    }
    row.amount = amount.value;
    if (amount.fee !== null) row.description = row.description === null ? `fee ${amount.fee} included` : `${row.description} (fee ${amount.fee} included)`;
    // A currency in the amount cell is read like a currency column (issue 41: "USD 5.00" in a EUR wallet).
    row.currency ??= amount.currency;
    const balance = mapping.balance_column === undefined ? null : parseDecimal(at(r, mapping.balance_column), mapping.decimal);
    // A row whose amount is the running total itself, with no counterparty and no purpose, states the balance.
    if (balance !== null && notBooked === null && row.payee === null && row.description === null && balance === amount.value) {
      rows.pop();
      statedRows.push({ kind: "stated", date: row.date, amount: balance });
      continue;
    }
    keepText(r, row);
    if (balance !== null && notBooked === null && row.date !== null) {
      balances.push({ date: row.date, amount: balance });
      running.push({ row: row.row, date: row.date, amount: amount.value, balance, others: kinds.numbersOf(r) });
    }
  }
  // Unsigned amounts beside a running balance (issue 48): each row signed by the balance's change, where it
  // tells every row but the first (a card's balance may count what is owed: asked there instead).
  const signs = byBalance === null || hints.card === true || mapping.fee_column !== undefined ? null : signsByBalance(running);
  let signGuessed: ParsedStatement["signGuessed"];
  if (signs !== null) {
    const known = signs.filter((s) => s !== null);
    const recordAt = new Map(records.map((r) => [r.line, r]));
    const firstAt = signs.indexOf(null);
    // The first row: as the other rows of its value in the direction column, else as most rows.
    const column = byBalance!.column;
    const valueOf = (i: number) => (column === null ? null : at(recordAt.get(running[i]!.row)!, column).trim());
    const alike = column === null ? [] : signs.filter((s, i) => s !== null && valueOf(i) === valueOf(firstAt));
    const out = known.filter((s) => s === "out").length;
    signs[firstAt] = alike.length > 0 && alike.every((s) => s === alike[0]) ? alike[0]! : out > known.length - out ? "out" : "in";
    // A guess all the same: the opening the balance column gives follows it, so only the wallet can check it.
    signGuessed = { row: running[firstAt]!.row, sign: signs[firstAt]! };
    const byRow = new Map(running.map((r, i) => [r.row, signs[i]!]));
    for (const row of rows) {
      const sign = byRow.get(row.row);
      if (sign === "out" && row.amount !== null && !row.amount.startsWith("-")) row.amount = `-${row.amount}`;
      if (sign === "in" && row.amount !== null) row.amount = row.amount.replace(/^-/, "");
    }
    const amountOf = new Map(rows.map((row) => [row.row, row.amount]));
    for (const r of running) r.amount = amountOf.get(r.row) ?? r.amount;
  }
  const booked = rows.filter((r) => r.notBooked === undefined);
  const dates = booked.map((r) => r.date).filter((d): d is string => d !== null);
  const latest = dates.reduce<string | null>((m, d) => (m === null || d > m ? d : m), null);
  const earliest = dates.reduce<string | null>((m, d) => (m === null || d < m ? d : m), null);
  const stated = readPreamble(preamble, mapping.decimal, mapping.date_order);
  const check = checkRunningBalance(running, dayBefore);
  // Where the balance does not tell them and reverses a row's sign as read, the person is asked.
  if (byBalance !== null && signs === null && check.issues.some((i) => i.kind === "sign")) {
    direction = byBalance;
    unsure.push("sign_out");
  }
  const sum = decimalOf(booked.reduce((n, r) => n + (r.amount === null ? 0n : units(r.amount)), 0n));
  const resolved = resolveBalances([...stated.found, ...statedRows], { earliest, latest, periodEnd: stated.periodEnd, periodStart: stated.periodStart, sum });
  return {
    format: "csv",
    rows,
    currency: null,
    opening: resolved.opening ?? check.opening,
    // A balance the file states wins; else the running balance on the latest row.
    closing: resolved.closing ?? closingOfColumn(balances, dates),
    mapping,
    layout: fingerprint,
    ...(check.issues.length === 0 ? {} : { balanceIssues: { issues: check.issues, feeColumn: check.feeColumn } }),
    ...(detected.apart === null || detected.apart === undefined ? {} : { datesApart: detected.apart }),
    ...(signGuessed === undefined ? {} : { signGuessed }),
    ...(unsure.length === 0 || records.length === 0
      ? {}
      : {
          unsure: {
            keys: unsure,
            sample: Object.fromEntries(columns.map((c, i) => [c, records[0]!.cells[i] ?? ""]).filter(([, v]) => v !== "")),
            ...(direction === null ? {} : { direction }),
          },
        }),
  };
}

function datesApartOf(dates: readonly string[], order: DateOrder, other: DateOrder): NonNullable<ParsedStatement["datesApart"]> | null {
  const [read, compact] = [dateRange(dates, order), dateRange(dates, other)];
  return read === null || compact === null ? null : { order, from: read.from, to: read.to, other, otherFrom: compact.from, otherTo: compact.to };
}

const dayBefore = (date: string): string => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/**
 * The running balance on the statement's latest row: of the rows of the latest day, the last in the
 * file's own order, which is the last booked when the file lists oldest first and the first when it lists
 * newest first.
 */
function closingOfColumn(balances: readonly StatedBalance[], dates: readonly string[]): StatedBalance | null {
  if (balances.length === 0) return null;
  const newestFirst = dates.length > 1 && dates[0]! > dates[dates.length - 1]!;
  let best: StatedBalance | null = null;
  for (const b of balances) {
    if (best === null || b.date > best.date || (b.date === best.date && !newestFirst)) best = b;
  }
  return best;
}

type Amount = { value: string; currency: string | null } | { error: string };

/**
 * The row's signed amount, with a fee column netted in (docs/decisions.md#statement-rows-and-balances): a fee column of
 * non-negative values is deducted (Revolut: balance = previous + amount − fee), one with negative values is
 * added as it stands (PayPal's "-0.59").
 */
function readAmount(
  r: Record_,
  mapping: CsvMapping,
  at: (r: Record_, c: string | undefined) => string,
  feeSigned = false,
): { value: string; currency: string | null; fee: string | null } | { error: string } {
  const read = readSigned(r, mapping, at);
  if ("error" in read || mapping.fee_column === undefined) return "error" in read ? read : { ...read, fee: null };
  const fee = parseDecimal(at(r, mapping.fee_column), mapping.decimal);
  if (fee === null || units(fee) === 0n) return { ...read, fee: null };
  const net = units(read.value) + (feeSigned ? units(fee) : -units(fee));
  return { value: decimalOf(net), currency: read.currency, fee: fee.replace(/^-/, "") };
}

function readSigned(r: Record_, mapping: CsvMapping, at: (r: Record_, c: string | undefined) => string): Amount {
  const read = readMagnitude(r, mapping, at);
  if ("error" in read) return read;
  let value = read.value;
  if (mapping.sign_column !== undefined) {
    const cell = at(r, mapping.sign_column);
    const sign = directionOf(cell, mapping.sign_out);
    if (sign === null) return { error: `${JSON.stringify(cell.slice(0, 20))} in ${JSON.stringify(mapping.sign_column)} is not a debit or credit mark` };
    const magnitude = value.startsWith("-") ? value.slice(1) : value;
    value = sign === "out" ? `-${magnitude}` : magnitude;
  } else if (mapping.purchases_positive === true && mapping.amount_column !== undefined) value = value.startsWith("-") ? value.slice(1) : `-${value}`;
  return { value, currency: read.currency };
}

function readMagnitude(r: Record_, mapping: CsvMapping, at: (r: Record_, c: string | undefined) => string): Amount {
  if (mapping.amount_column !== undefined) {
    const text = at(r, mapping.amount_column);
    const value = parseDecimal(text, mapping.decimal);
    return value === null
      ? { error: `amount ${JSON.stringify(text.slice(0, 40))} does not read as a number with decimal ${JSON.stringify(mapping.decimal)}` }
      : { value, currency: currencyInCell(text) };
  }
  // A dash stands for no amount in the other column of the pair.
  const [debitText, creditText] = [at(r, mapping.debit_column), at(r, mapping.credit_column)].map((c) => (isNoAmount(c) ? "" : c)) as [string, string];
  const debit = debitText === "" ? null : parseDecimal(debitText, mapping.decimal);
  const credit = creditText === "" ? null : parseDecimal(creditText, mapping.decimal);
  if (debitText !== "" && debit === null) return { error: `debit ${JSON.stringify(debitText.slice(0, 40))} does not read as a number` };
  if (creditText !== "" && credit === null) return { error: `credit ${JSON.stringify(creditText.slice(0, 40))} does not read as a number` };
  const magnitude = (v: string | null) => (v === null ? null : v.replace(/^-/, ""));
  const out = magnitude(debit);
  const inn = magnitude(credit);
  const currency = currencyInCell(debitText) ?? currencyInCell(creditText);
  if (out !== null && !/^[0.]+$/.test(out)) return { value: `-${out}`, currency };
  if (inn !== null) return { value: inn, currency };
  return out !== null ? { value: out, currency } : { error: "neither debit nor credit is filled in" };
}
