/**
 * The leave-one-bank-out check of issue 48 (docs/import.md, "Columns by content"): each CSV layout of the
 * statement corpus is read with every word of the detector's vocabulary withheld that its bank's header
 * uses and no other bank's, so the layout must be read by its cells (and by the words other banks share).
 * Engine-free; test/statements/columns-by-content.test.ts and test/tools/import-leave-one-bank-out.test.ts use it.
 */
import { readFileSync } from "node:fs";
import { detectMapping, fold, namesColumn, VOCABULARY, type Vocabulary } from "../../src/statements/csv.js";
import { parseDate } from "../../src/statements/dates.js";
import { parseStatement } from "../../src/statements/parse.js";
import type { CsvMapping, ParsedStatement } from "../../src/statements/types.js";

export interface CorpusLayout {
  layout: string;
  file: string;
  format: "csv" | "mt940";
  currency: string;
  encoding: string;
  wallet_type: string;
  opening_balance: string;
  rows: number;
  /** Rows the file holds that are not booked (pending, declined …): shown and counted, never imported. */
  not_booked?: number;
  states_balance: boolean;
  /** The mapping the person sends when the preview asks (test/tools/import-corpus.test.ts). */
  answer?: Record<string, string>;
}

const dir = new URL("../fixtures/statements/corpus/", import.meta.url);
export const corpus = JSON.parse(readFileSync(new URL("corpus.json", dir), "utf8")) as CorpusLayout[];
export const textOf = (l: CorpusLayout) =>
  new TextDecoder(l.encoding === "utf-8-bom" ? "utf-8" : l.encoding, { ignoreBOM: true }).decode(readFileSync(new URL(l.file, dir)));

/** The bank of a layout: `de-sparkasse-csv-camt` is Sparkasse's, as are its other layouts. */
export const bankOf = (layout: string) => layout.split("-")[1]!;

/** The vocabulary's words that this header holds, as the detector matches them: a whole header, or inside one (five letters or more). */
export function wordsInHeader(columns: readonly string[]): Set<string> {
  const folded = columns.map(fold);
  const out = new Set<string>();
  for (const names of Object.values(VOCABULARY))
    for (const name of names) if (folded.some((f) => namesColumn(f, name) || (name.length >= 5 && f.includes(name)))) out.add(name);
  return out;
}

const headerOf = (l: CorpusLayout): string[] => {
  if (l.format !== "csv") return [];
  const d = detectMapping(textOf(l).replace(/^\uFEFF/, ""));
  return d.headerIndex < 0 ? [] : d.columns;
};

/** Per layout, the words withheld: in its bank's header and in no other bank's. */
export function withheldWords(layouts: readonly CorpusLayout[] = corpus): Map<string, string[]> {
  const byBank = new Map<string, Set<string>>();
  const perLayout = new Map<string, Set<string>>();
  for (const l of layouts) {
    const words = wordsInHeader(headerOf(l));
    perLayout.set(l.layout, words);
    const bank = byBank.get(bankOf(l.layout)) ?? new Set<string>();
    for (const w of words) bank.add(w);
    byBank.set(bankOf(l.layout), bank);
  }
  const out = new Map<string, string[]>();
  for (const l of layouts) {
    const others = [...byBank].filter(([bank]) => bank !== bankOf(l.layout)).map(([, words]) => words);
    out.set(
      l.layout,
      [...perLayout.get(l.layout)!].filter((w) => !others.some((o) => o.has(w))),
    );
  }
  return out;
}

export function vocabularyWithout(words: readonly string[]): Vocabulary {
  const out = {} as Record<keyof Vocabulary, readonly string[]>;
  for (const [key, names] of Object.entries(VOCABULARY) as [keyof Vocabulary, readonly string[]][]) out[key] = names.filter((n) => !words.includes(n));
  return out;
}

export const hintsOf = (l: CorpusLayout) => ({ card: l.wallet_type === "credit_card" });

/** The layout read with the whole vocabulary, or with the given one. */
export function read(l: CorpusLayout, vocabulary?: Vocabulary, mapping: Partial<CsvMapping> = {}): ParsedStatement {
  return parseStatement(textOf(l), undefined, mapping, hintsOf(l), vocabulary);
}

/** Every date a row's cells hold, by its line: a reading may take another of the row's own dates (a card's posting date for its transaction date). */
function rowDates(l: CorpusLayout): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  if (l.format !== "csv") return out;
  const d = detectMapping(textOf(l).replace(/^\uFEFF/, ""));
  const order = d.mapping.date_order;
  for (const r of d.records) out.set(r.line, new Set(r.cells.map((c) => parseDate(c, order)).filter((x): x is string => x !== null)));
  return out;
}

/**
 * What differs between the layout read with the whole vocabulary and read otherwise: money, signs,
 * currencies, validity, payee, purpose and stated balances must be the same; a date may be another of the
 * row's own dates (then a balance may be dated by it too). Empty when none. The bank's row id is not
 * compared: it is read by name only (a column taken for an id by mistake would hide rows as duplicates).
 */
export function differences(l: CorpusLayout, expected: ParsedStatement, got: ParsedStatement): string[] {
  const out: string[] = [];
  const dates = rowDates(l);
  const sameDay = (row: number, a: string | null | undefined, b: string | null | undefined) =>
    a === b || (a != null && b != null && dates.get(row)?.has(a) === true && dates.get(row)?.has(b) === true);
  if (expected.rows.length !== got.rows.length) out.push(`${got.rows.length} rows, not ${expected.rows.length}`);
  expected.rows.forEach((e, i) => {
    const g = got.rows[i];
    if (g === undefined) return;
    for (const k of ["amount", "currency"] as const) if (e[k] !== g[k]) out.push(`row ${e.row}: ${k} ${g[k]}, not ${e[k]}`);
    if (!sameDay(e.row, e.date, g.date)) out.push(`row ${e.row}: date ${g.date}, not ${e.date} (nor another date of the row)`);
    if ((e.error === null) !== (g.error === null)) out.push(`row ${e.row}: ${g.error === null ? "valid" : `invalid (${g.error.reason})`}, not as expected`);
    if (e.payee !== g.payee) out.push(`row ${e.row}: payee ${JSON.stringify(g.payee)}, not ${JSON.stringify(e.payee)}`);
    if (e.description !== g.description) out.push(`row ${e.row}: description ${JSON.stringify(g.description)}, not ${JSON.stringify(e.description)}`);
  });
  const anyDay = (a: string, b: string) => a === b || [...dates.values()].some((d) => d.has(a) && d.has(b));
  for (const k of ["opening", "closing"] as const) {
    const [e, g] = [expected[k], got[k]];
    if (e?.amount !== g?.amount || (e !== null && g !== null && !anyDay(e.date, g.date)))
      out.push(`${k} balance ${JSON.stringify(got[k])}, not ${JSON.stringify(expected[k])}`);
  }
  return out;
}

/**
 * Layouts that read otherwise without their bank's own words, each with why that is never silent. Kept
 * both ways: a listed layout that reads right again fails its test until it is taken off.
 */
export const KNOWN_MISSES: Record<string, string> = {};
