import { invalidParams } from "../errors.js";
import type { CsvMapping, DirectionAsk } from "./types.js";
/**
 * Signs as banks write them beside the amount: an indicator column (`S`/`H` Soll/Haben, `D`/`C`,
 * `DR`/`CR`, `Debit`/`Credit`, ING's `Af`/`Bij`, `Ausgang`/`Eingang`, `Débito`/`Crédito`) that makes an unsigned amount money
 * out or in. Found by content: a column of which every data row holds one of these words.
 */

// Directions too (Wise's Direction IN/OUT, a Type of Withdrawal or Deposit, Uttag/Insättning). Accents folded: Portuguese and Spanish "Débito"/"Crédito", French "Débit"/"Crédit", Italian "Addebito"/"Accredito", Polish "Obciążenie"/"Uznanie".
const OUT = new Set([
  "s",
  "d",
  "dr",
  "debit",
  "debet",
  "af",
  "soll",
  "dbit",
  "ausgang",
  "belastung",
  "debito",
  "addebito",
  "cargo",
  "uscita",
  "obciazenie",
  "out",
  "outgoing",
  "withdrawal",
  "uttag",
  "abgang",
  "sortie",
  "retrait",
  "prelievo",
  "opname",
  "-",
]);
const IN = new Set([
  "h",
  "c",
  "cr",
  "credit",
  "bij",
  "haben",
  "crdt",
  "eingang",
  "gutschrift",
  "credito",
  "accredito",
  "abono",
  "entrata",
  "uznanie",
  "in",
  "incoming",
  "deposit",
  "insattning",
  "zugang",
  "entree",
  "depot",
  "versamento",
  "storting",
  "+",
]);

const word = (cell: string) =>
  cell
    .trim()
    .toLowerCase()
    .replace(/ą/g, "a")
    .replace(/ż/g, "z")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");

/** "out", "in", or null when the cell is not an indicator. */
export function indicatorOf(cell: string): "out" | "in" | null {
  const w = word(cell);
  return OUT.has(w) ? "out" : IN.has(w) ? "in" : null;
}

/** Whether a column's cells (every data row's) are all indicators, of at least one row. */
export function isIndicatorColumn(cells: readonly string[]): boolean {
  return cells.length > 0 && cells.every((c) => indicatorOf(c) !== null);
}

/**
 * The values the person named as money out (mapping.sign_out: one cell value, or several separated by "|"),
 * folded as indicators are; "" names none (every row money in).
 */
export function outValues(signOut: string): Set<string> {
  if (signOut.trim() === "") return new Set();
  return new Set([word(signOut), ...signOut.split("|").map(word)].filter((w) => w !== ""));
}

/** A row's direction by its sign cell: the person's sign_out when given (any other value is money in), else the known words. */
export function directionOf(cell: string, signOut: string | undefined): "out" | "in" | null {
  if (signOut === undefined) return indicatorOf(cell);
  return outValues(signOut).has(word(cell)) ? "out" : "in";
}

const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

/** The most values a column of direction words holds (a transfer, a card payment, a direct debit … and money in). */
const MAX_DIRECTION_VALUES = 4;
const MAX_DIRECTION_LENGTH = 24;
/** The values an ask shows of a column that holds more (a transaction-type column): the count says the rest. */
export const SHOWN_DIRECTION_VALUES = 8;

/**
 * A column that may tell money out from in with words no list here knows ("Belast."/"Gutschr.",
 * "Afschrijving"/"Bijschrijving", "PAY"/"RCV"): filled on every row, short values, each with a letter, none a
 * number or a date, not all currency codes; 2 to 4 distinct values, or, with `wide`, one value (a filtered
 * view's "Lastschrift" on every row) or more than 4 that repeat (a transaction type: "Card payment",
 * "Direct debit", "Standing order" …). Its distinct values, in the order of the file, or null.
 * The caller asks the person which one is money out (docs/import.md, mapping_unsure); it never guesses.
 */
export function directionWords(cells: readonly string[], isNumberOrDate: (cell: string) => boolean, wide = false): string[] | null {
  if (cells.length < 2 || cells.some((c) => c.trim() === "")) return null;
  const values = [...new Set(cells.map((c) => c.trim()))];
  const narrow = values.length >= 2 && values.length <= MAX_DIRECTION_VALUES;
  if (!narrow && !(wide && (values.length === 1 || values.length < cells.length))) return null;
  const fits = (v: string) => v.length <= MAX_DIRECTION_LENGTH && /\p{L}/u.test(v) && !isNumberOrDate(v);
  // A currency column of a multi-currency export ("EUR", "USD") is no direction; "PAY"/"RCV" may be.
  return values.every(fits) && !values.every((v) => CURRENCIES.has(v)) ? values : null;
}

export interface DirectionInput {
  columns: readonly string[];
  /** Columns the mapping took for something else (date, payee, purpose, balance …). */
  used: ReadonlySet<string>;
  mapping: Partial<CsvMapping>;
  given: Partial<CsvMapping>;
  /** A column's non-empty cells. */
  cellsOf: (column: string | undefined) => string[];
  /** A column's cells on the rows whose amount is filled, empty ones kept. */
  cellsBesideAmounts: (column: string) => string[];
  /** The amount column's cells read as signed decimals (null where one does not read). */
  amounts: readonly (string | null)[];
  isNumberOrDate: (cell: string) => boolean;
  isStatus: (cells: readonly string[]) => boolean;
}

/**
 * The columns that may hold direction words: those the mapping left, then a purpose column found by content
 * (a column of "Belast."/"Gutschr." is taken for the longest text where it is the only text), never one the
 * person named.
 */
const open = (d: DirectionInput): string[] => [
  ...d.columns.filter((c) => !d.used.has(c)),
  ...(d.given.description_column === undefined && d.mapping.description_column !== undefined ? [d.mapping.description_column] : []),
];

const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(", ");

/** A direction column's values as an ask names them (the warning, the refusal): the first few, and how many more. */
export const directionValues = (d: DirectionAsk): string => `${quoted(d.values)}${d.more === undefined ? "" : ` and ${d.more} more`}`;

/**
 * Sets mapping.sign_out (and the sign column it names, when the person sent only the value), and says what
 * the person must be asked (issue 48: a balance is never silently wrong): a sign column of words no list
 * knows and no sign_out, or, where one unsigned amount column is all non-negative and nothing else signs
 * it (no debit/credit pair, indicator column or running balance), a column of direction words found by content.
 */
export function settleDirection(d: DirectionInput): DirectionAsk | null {
  const { mapping, given, cellsOf } = d;
  const signOut = given.sign_out;
  if (signOut !== undefined) mapping.sign_out = signOut;
  const out = outValues(signOut ?? "");
  if (out.size > 0 && mapping.sign_column === undefined) {
    const column = open(d).find((c) => cellsOf(c).some((v) => out.has(word(v))));
    if (column === undefined)
      throw invalidParams(
        "mapping.sign_out",
        "a value of the sign column",
        `mapping.sign_out: no column holds ${JSON.stringify(signOut)}. Send mapping.sign naming the column that does.`,
      );
    mapping.sign_column = column;
  }
  if (mapping.sign_column !== undefined) {
    const cells = cellsOf(mapping.sign_column);
    const values = [...new Set(cells.map((c) => c.trim()))];
    if (signOut === undefined)
      return isIndicatorColumn(cells)
        ? null
        : {
            column: mapping.sign_column,
            values: values.slice(0, SHOWN_DIRECTION_VALUES),
            named: true,
            ...(values.length > SHOWN_DIRECTION_VALUES ? { more: values.length - SHOWN_DIRECTION_VALUES } : {}),
          };
    if (out.size > 0 && values.length > 1 && !values.some((v) => out.has(word(v))))
      throw invalidParams(
        "mapping.sign_out",
        "a value of the sign column",
        `mapping.sign_out: no row of ${JSON.stringify(mapping.sign_column)} holds ${JSON.stringify(signOut)}; its values are ${quoted(values.slice(0, 8))}. Send the one that means money out.`,
      );
    return null;
  }
  // sign_out "" and no sign column: the person said every row is money in.
  if (signOut !== undefined || mapping.balance_column !== undefined) return null;
  return unsignedAsk(d);
}

/**
 * Where one unsigned amount column is all non-negative and nothing signs it (no debit/credit pair, indicator
 * column, sign_out or negate from the person), what to ask: the column most likely to tell money out from
 * in (2 to 4 repeating values, then a transaction type of more, then 2 to 4 once each, then one value on every
 * row), or no column at all; null when something signs the amounts. A running balance is not looked at here:
 * the caller reads the signs by it where it has one (running-balance.ts, signsByBalance).
 */
export function unsignedAsk(d: DirectionInput): DirectionAsk | null {
  const { mapping, given } = d;
  if (given.sign_out !== undefined || mapping.sign_column !== undefined || mapping.amount_column === undefined || given.purchases_positive !== undefined)
    return null;
  if (mapping.debit_column !== undefined || mapping.credit_column !== undefined) return null;
  const read = d.amounts.filter((a): a is string => a !== null);
  if (read.length === 0 || read.some((a) => a.startsWith("-"))) return null;
  const found: { ask: DirectionAsk; rank: number }[] = [];
  for (const column of open(d)) {
    const cells = d.cellsBesideAmounts(column);
    const values = directionWords(cells, d.isNumberOrDate, true);
    if (values === null || d.isStatus(d.cellsOf(column))) continue;
    // A purpose column found by content is asked about only where its values repeat: two rows of two purposes are text.
    const repeats = values.length < cells.length;
    if (!repeats && column === d.mapping.description_column) continue;
    const rank = values.length === 1 ? 3 : values.length > MAX_DIRECTION_VALUES ? 1 : repeats ? 0 : 2;
    const shown = values.slice(0, SHOWN_DIRECTION_VALUES);
    found.push({ ask: { column, values: shown, named: false, ...(values.length > shown.length ? { more: values.length - shown.length } : {}) }, rank });
  }
  found.sort((a, b) => a.rank - b.rank);
  return found[0]?.ask ?? { column: null, values: [], named: false };
}
