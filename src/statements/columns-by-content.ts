/**
 * Which column of a CSV is which, told by what the cells hold when the header's words do not tell it
 * (issue 48): an unknown bank, a renamed column, a file without a header. Every column gets a profile
 * (dates, numbers, signs, how many distinct values, how long its text); then
 *   - a column chosen by its name is kept only if its content agrees (an "Amount" of dates is none; a
 *     payee that is the same on every row is the account holder's own name, never the payee);
 *   - the date is the first column of dates;
 *   - the money is one signed column, or an unsigned debit/credit pair (two columns of which each row
 *     fills one), or an unsigned column with a sign column beside it (found in csv.ts by its S/H words);
 *   - a running balance is the numeric column that moves by each row's amount, and it also tells which
 *     column of a pair is money out;
 *   - a fee is the column of charges with which the running balance moves where the amounts alone do not;
 *   - the counterparty is varied text that is not the same on every row; the purpose the longest one.
 * What content cannot tell is not guessed silently: a pair whose direction no balance confirms is read
 * by which column fills more rows (debits outnumber credits) and reported unsure, and one whose columns
 * fill as many rows each is refused, naming the mapping to send.
 */
import { invalidParams } from "../errors.js";
import { NOT_A_BALANCE } from "./csv-preamble.js";
import { indicatorOf, isIndicatorColumn } from "./csv-sign.js";
import { parseDate } from "./dates.js";
import { notBookedOf } from "./row-kinds.js";
import { guessDecimal, isNoAmount, parseDecimal } from "./numbers.js";
import type { CsvMapping } from "./types.js";

/** What content can tell that the reader then asks the person to confirm. */
export type UnsureColumn = "debit_column";

export interface ContentInput {
  columns: readonly string[];
  /** The data rows' cells, in file order. */
  rows: readonly (readonly string[])[];
  /** The mapping so far (given by the person, remembered or found by name); completed in place. */
  mapping: Partial<CsvMapping>;
  /** The keys the person (or a remembered mapping) named: never second-guessed. */
  given: Partial<CsvMapping>;
  /** The decimal mark to assume where a column does not tell it. */
  decimalFallback: "," | ".";
}

interface Profile {
  index: number;
  name: string;
  cells: string[];
  /** Rows with a cell. */
  filled: number;
  /** Cells that say the row is not booked ("Reserverat" where Nordea writes the booking day of a booked row). */
  statuses: number;
  /** Cells with digits that read as neither a number, a date nor text ("67.34x"): an amount garbled by the export. */
  odd: number;
  dates: number;
  numbers: number;
  negatives: number;
  /** Cells of digits only (a check number, a card's last four, a reference): not money by themselves. */
  plainIntegers: number;
  /** Cells of a dash alone: no amount on that row (a debit column's dash on a credit's row). */
  dashes: number;
  /** Cells with words (letters, not a code such as an IBAN or a BIC). */
  wordy: number;
  distinct: number;
  /** Distinct texts with their digits set aside: 1 for a numbered reference ("Transaction no. 9930000004"). */
  distinctWords: number;
  averageLength: number;
  decimal: "," | ".";
}

const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/;
const BIC = /^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/;

const LETTER = /\p{L}/u;

/** The letters and digits of a cell, counted in one pass (every cell of the file is counted). */
function lettersAndDigits(cell: string): { letters: number; digits: number } {
  let letters = 0;
  let digits = 0;
  for (let i = 0; i < cell.length; i++) {
    const c = cell.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && LETTER.test(cell[i]!))) letters++;
  }
  return { letters, digits };
}

function isWordy(cell: string, letters: number, digits: number): boolean {
  if (letters < 2 || letters <= digits) return false;
  // An IBAN is often printed in groups of four; a BIC never has a space ("IDP PURCHASE" is words, not a BIC).
  const compact = cell.replace(/\s+/g, "");
  return !IBAN.test(compact) && !BIC.test(cell.trim());
}

const isDate = (cell: string) => parseDate(cell, "day_first") !== null || parseDate(cell, "month_first") !== null;

/** The rows a column is judged by: the first thousand tell what a column holds as well as five thousand. */
const MAX_ROWS = 1000;

/**
 * The most columns of one kind (dates, money, names) compared with each other in pairs, in file order: a bank
 * export has at most a few dozen columns (the corpus's widest, 28), and comparing every pair of a file of
 * thousands of columns made its detection quadratic and cubic in its width (issue 51: a wide CSV of 400,000
 * characters took 50 s). Pair work is then at most PAIRED² × rows, and the rest is linear in cells.
 */
export const PAIRED = 32;
const firstPaired = <T>(ps: readonly T[]): readonly T[] => (ps.length > PAIRED ? ps.slice(0, PAIRED) : ps);

/** Row steps of the comparisons between columns, counted (test/statements/wide-csv.test.ts holds them linear in cells). */
export const contentWork = { steps: 0 };

function profileOf(index: number, name: string, rows: readonly (readonly string[])[], fallback: "," | "."): Profile {
  contentWork.steps += rows.length;
  const cells = rows.map((r) => (r[index] ?? "").trim());
  const filledCells = cells.filter((c) => c !== "");
  const decimal = guessDecimal(filledCells, fallback);
  let dates = 0;
  let numbers = 0;
  let negatives = 0;
  let plainIntegers = 0;
  let wordy = 0;
  let statuses = 0;
  let odd = 0;
  let dashes = 0;
  for (const c of filledCells) {
    if (isNoAmount(c)) {
      dashes++;
      continue;
    }
    if (notBookedOf(c) !== null) statuses++;
    const { letters, digits } = lettersAndDigits(c);
    // Every date and number has a digit; a number has at most a currency code's three letters.
    if (digits === 0) {
      if (isWordy(c, letters, digits)) wordy++;
      continue;
    }
    if (isDate(c)) dates++;
    const n = letters > 3 ? null : parseDecimal(c, decimal);
    if (n !== null) {
      numbers++;
      if (n.startsWith("-")) negatives++;
      if (/^\d+$/.test(c)) plainIntegers++;
    }
    if (isWordy(c, letters, digits)) wordy++;
    else if (n === null && !isDate(c)) odd++;
  }
  return {
    index,
    name,
    cells,
    filled: filledCells.length,
    statuses,
    odd,
    dates,
    numbers,
    negatives,
    plainIntegers,
    wordy,
    dashes,
    distinct: new Set(filledCells.map((c) => c.toLowerCase())).size,
    distinctWords: new Set(filledCells.map((c) => c.toLowerCase().replace(/\d+/g, "#"))).size,
    averageLength: filledCells.length === 0 ? 0 : filledCells.reduce((n, c) => n + c.length, 0) / filledCells.length,
    decimal,
  };
}

const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

/** Every row's cell the same (three rows or more): the account holder, the own IBAN, the currency. */
const isConstant = (p: Profile, rows: number) => rows >= 3 && p.filled === rows && p.distinct === 1;
/** One and the same text on every row that has one (three or more): the card holder's name on card rows. */
const isOneName = (p: Profile) => p.filled >= 3 && p.distinct === 1;
const isDateColumn = (p: Profile) => p.filled > p.statuses && p.dates >= (p.filled - p.statuses) * 0.8;
/**
 * Numbers in every filled cell but one in ten at most that does not read (that row is then shown invalid,
 * never the column passed over for the running balance), not dates, and not only plain integers (a check
 * number or a card's last four).
 */
const isMoneyColumn = (p: Profile) =>
  p.filled > 0 &&
  p.numbers + p.odd + p.dashes === p.filled &&
  p.odd <= Math.max(1, p.filled / 10) &&
  p.numbers > p.odd &&
  p.dates < p.filled &&
  p.plainIntegers < p.filled;
const isTextColumn = (p: Profile, rows: number) =>
  p.filled >= Math.max(1, rows * 0.5) &&
  p.wordy >= p.filled * 0.5 &&
  !isConstant(p, rows) &&
  !isNumberedReference(p) &&
  !isIndicatorColumn(p.cells.filter((c) => c !== ""));
/** The same words on every row but for a number (UBS's "Transaction no. 9930000004"): a reference, neither counterparty nor purpose. */
const isNumberedReference = (p: Profile) => p.filled >= 3 && p.distinct > 1 && p.distinctWords === 1;

/** Whether p's dates are on or after q's on every row both fill, and after on one at least (dates as ISO, read once per column). */
function isLaterThan(p: readonly (string | null)[], q: readonly (string | null)[]): boolean {
  let later = false;
  for (let i = 0; i < p.length; i++) {
    contentWork.steps++;
    const [a, b] = [p[i], q[i]];
    if (a === null || a === undefined || b === null || b === undefined) continue;
    if (a < b) return false;
    if (a > b) later = true;
  }
  return later;
}

/** A date cell read in either order (the order does not change which of two dates of a row is later, for a file of one order). */
const isoOf = (cell: string) => parseDate(cell, "day_first") ?? parseDate(cell, "month_first");

/** The value of a money cell in cents (null when empty or zero), for comparing columns. */
function cents(cell: string, decimal: "," | "."): number | null {
  if (cell === "") return null;
  const v = parseDecimal(cell, decimal);
  if (v === null) return null;
  const n = Math.round(Number(v) * 100);
  return n === 0 ? null : n;
}

/**
 * Whether `balance` is a running balance of the signed amounts `amount` (cents, null for a row without
 * one): each row's balance is the previous row's plus its amount, listed oldest first or newest first.
 * Every consecutive pair must agree; at least two pairs.
 */
function runsWith(amount: readonly (number | null)[], balance: readonly (number | null)[]): boolean {
  // An amount that does not read (one garbled cell) is not compared: it tells neither way.
  let forwardPairs = 0;
  let backwardPairs = 0;
  let forward = true;
  let backward = true;
  for (let i = 1; i < amount.length; i++) {
    contentWork.steps++;
    const [b0, b1, a0, a1] = [balance[i - 1], balance[i], amount[i - 1], amount[i]];
    if (b0 === null || b0 === undefined || b1 === null || b1 === undefined) continue;
    if (a1 !== null && a1 !== undefined) {
      forwardPairs++;
      if (b1 - b0 !== a1) forward = false;
    }
    if (a0 !== null && a0 !== undefined) {
      backwardPairs++;
      if (b0 - b1 !== a0) backward = false;
    }
    // Neither order holds: the rest cannot help (a wide file's pairs of columns are tried many times).
    if (!forward && !backward) return false;
  }
  return (forward && forwardPairs >= 2) || (backward && backwardPairs >= 2);
}

const signedMagnitude = (c: number | null, sign: 1 | -1) => (c === null ? null : sign * Math.abs(c));

export interface ContentResult {
  unsure: UnsureColumn[];
}

/** Completes `input.mapping` from the cells: see the module comment. */
export function chooseColumnsByContent(input: ContentInput): ContentResult {
  const { columns, mapping, given } = input;
  const rows = input.rows.length > MAX_ROWS ? input.rows.slice(0, MAX_ROWS) : input.rows;
  const n = rows.length;
  const profiles = columns.map((name, i) => profileOf(i, name, rows, input.decimalFallback));
  const byName = (c: string | undefined) => (c === undefined ? undefined : profiles[columns.indexOf(c)]);
  const unsure: UnsureColumn[] = [];
  // A column the person named that the file lacks is refused by the caller, naming it.
  if (Object.entries(mapping).some(([key, c]) => key.endsWith("_column") && typeof c === "string" && !columns.includes(c))) return { unsure };

  // 1. A column chosen by its name must hold what the name says; the person's own choice stands.
  const keep = (key: keyof CsvMapping, ok: (p: Profile) => boolean) => {
    const column = mapping[key];
    if (typeof column !== "string" || given[key] !== undefined) return;
    const p = byName(column);
    if (p !== undefined && !ok(p)) delete mapping[key];
  };
  // A date column with a few cells that do not read stays: those rows are shown invalid.
  keep("date_column", (p) => p.filled === 0 || p.dates > p.filled / 2);
  for (const key of ["amount_column", "debit_column", "credit_column", "balance_column"] as const)
    // A money column of dates or words is none; one with a few cells that do not read stays, and those rows are shown invalid.
    keep(
      key,
      (p) =>
        p.dates <= p.filled / 2 &&
        p.wordy <= p.filled / 2 &&
        (p.filled < 3 || p.numbers >= p.filled / 2) &&
        !(p.filled > 0 && isIndicatorColumn(p.cells.filter((c) => c !== ""))),
    );
  // The account holder's own name (or account) on every row is never the other party.
  for (const key of ["payee_column", "payer_column", "description_column"] as const)
    // An empty column named so (UBS's "Footnotes" beside Description1-3) holds no text: the cells choose another.
    keep(key, (p) => (p.filled === 0 && n === 0) || (!isOneName(p) && p.wordy > 0 && !isIndicatorColumn(p.cells.filter((c) => c !== ""))));

  const taken = () => new Set(Object.values(mapping).filter((v): v is string => typeof v === "string"));

  // 2. The date: of the columns of dates, the booking date, which is never before the others on a row (a
  // card's transaction date comes before its posting, Revolut's start before its completion); else the first.
  if (mapping.date_column === undefined) {
    // Half the rows at least: a posting date is empty on rows not posted yet (Revolut's pending rows).
    const dated = firstPaired(profiles.filter((p) => isDateColumn(p) && p.filled >= n * 0.5));
    const iso = new Map(dated.map((p) => [p, p.cells.map(isoOf)]));
    mapping.date_column = (dated.find((p) => dated.every((q) => q === p || isLaterThan(iso.get(p)!, iso.get(q)!))) ?? dated.find((p) => p.filled >= n * 0.8))
      ?.name;
  }

  // 3. The money.
  const money = () => profiles.filter((p) => !taken().has(p.name) && isMoneyColumn(p) && !isConstant(p, n));
  // Each column's amounts read once: pairs and balances compare them many times.
  const centsCache = new Map<Profile, (number | null)[]>();
  const centsOf = (p: Profile) => {
    let out = centsCache.get(p);
    if (out === undefined) centsCache.set(p, (out = p.cells.map((c) => cents(c, p.decimal))));
    return out;
  };
  const hasMoney = () => mapping.amount_column !== undefined || mapping.debit_column !== undefined || mapping.credit_column !== undefined;
  /** Two columns of which no row fills both, and together fill most rows. */
  const complementary = (a: Profile, b: Profile) => {
    const [ca, cb] = [centsOf(a), centsOf(b)];
    let either = 0;
    for (let i = 0; i < n; i++) {
      contentWork.steps++;
      if (ca[i] !== null && cb[i] !== null) return false;
      // A filled cell that does not read (a garbled amount) still fills its row.
      if (a.cells[i] !== "" || b.cells[i] !== "") either++;
    }
    return ca.some((v) => v !== null) && cb.some((v) => v !== null) && either >= n * 0.9;
  };
  /** A column of the candidates that is the running balance of the given signed amounts. */
  // An available balance ("Disponible", "Available") runs with the amounts too, but is not the ledger's.
  const isLedgerBalance = (p: Profile) =>
    !NOT_A_BALANCE.some((word) =>
      p.name
        .toLowerCase()
        .replace(/[^a-z]/g, "")
        .includes(word),
    );
  const balanceFor = (amounts: readonly (number | null)[], candidates: readonly Profile[]) =>
    (mapping.balance_column !== undefined ? [byName(mapping.balance_column)!] : candidates).find((p) => runsWith(amounts, centsOf(p)) && isLedgerBalance(p));
  /**
   * A fee column no name told, and the running balance it explains: a column of charges of one sign (zero or
   * empty on most rows), with which the balance follows every row (balance = previous + amount − fee; a
   * signed fee is added as it stands) where it does not follow the amounts alone.
   */
  const feeFor = (amounts: readonly (number | null)[], balances: readonly Profile[]) => {
    const fees = firstPaired(money());
    for (const balance of firstPaired(balances)) {
      if (!isLedgerBalance(balance) || runsWith(amounts, centsOf(balance))) continue;
      for (const fee of fees) {
        if (fee === balance) continue;
        const charges = centsOf(fee);
        const charged = charges.filter((v): v is number => v !== null);
        if (charged.length === 0 || !(charged.every((v) => v > 0) || charged.every((v) => v < 0))) continue;
        const net = amounts.map((a, i) => (a === null ? null : a - Math.abs(charges[i] ?? 0)));
        if (runsWith(net, centsOf(balance))) return { fee, balance };
      }
    }
    return undefined;
  };

  /**
   * Of the first eight full money columns, one that is the sum of two others on every row, the second of them
   * not all zero, the two never of opposite signs: parts of one payment (Up's Subtotal and Round Up). A balance
   * after a row is the balance before it plus the amount, and a payment out makes those two opposite, so an
   * export's before/after pair under names no list knows is never read as the amount.
   */
  const totalOf = (full: readonly Profile[]): Profile | undefined => {
    const few = full.slice(0, 8);
    for (const t of few)
      for (const a of few)
        for (const b of few) {
          if (t === a || t === b || a === b) continue;
          const [ct, ca, cb] = [centsOf(t), centsOf(a), centsOf(b)];
          let sums = true;
          let part = false;
          for (let i = 0; i < n && sums; i++) {
            contentWork.steps++;
            const [x, y, z] = [ct[i] ?? 0, ca[i] ?? 0, cb[i] ?? 0];
            if (x !== y + z || y * z < 0) sums = false;
            else if (z !== 0) part = true;
          }
          if (sums && part) return t;
        }
    return undefined;
  };

  // An amount column that fills only some rows beside one that fills the others is one of a debit/credit
  // pair: the pair and its direction are found below, as for a pair no name told.
  if (given.amount_column === undefined && mapping.amount_column !== undefined && mapping.debit_column === undefined && mapping.credit_column === undefined) {
    const amount = byName(mapping.amount_column)!;
    if (amount.filled < n * 0.9 && money().some((p) => complementary(amount, p))) delete mapping.amount_column;
  }
  // One column of a pair known by its name: its partner is the column that fills the other rows.
  if (mapping.amount_column === undefined && (mapping.debit_column === undefined) !== (mapping.credit_column === undefined)) {
    const known = byName(mapping.debit_column ?? mapping.credit_column)!;
    const partner = money().find((p) => complementary(known, p));
    if (partner !== undefined) mapping[mapping.debit_column === undefined ? "debit_column" : "credit_column"] = partner.name;
  }
  if (!hasMoney()) {
    const candidates = firstPaired(money());
    let pair: readonly [Profile, Profile] | undefined;
    for (let i = 0; i < candidates.length && pair === undefined; i++)
      for (const b of candidates.slice(i + 1))
        if (complementary(candidates[i]!, b)) {
          pair = [candidates[i]!, b];
          break;
        }
    const full = candidates.filter((p) => p.filled >= n * 0.9);
    if (pair !== undefined && !full.some((p) => p.negatives > 0 && p.negatives < p.filled && !isBalanceOf(p, pair))) {
      choosePair(pair[0], pair[1]);
    } else if (full.length > 0) {
      // A signed amount and perhaps its running balance: the amount is the column the other runs with.
      let amount: Profile | undefined;
      for (const a of full) {
        const balance = balanceFor(
          centsOf(a),
          full.filter((p) => p !== a),
        );
        if (balance !== undefined) {
          amount = a;
          if (mapping.balance_column === undefined) mapping.balance_column = balance.name;
          break;
        }
      }
      // No balance tells: a column that is the sum of two others on every row is the money that moved, the
      // others its parts (Up's Total = Subtotal + Round Up; issue 48, third probe: the round-ups were lost).
      mapping.amount_column = (amount ?? totalOf(full) ?? full[0]!).name;
    } else if (pair === undefined && mapping.balance_column !== undefined) {
      // Balance lines among the rows (Itaú's "SALDO ANTERIOR" and "SALDO TOTAL DISPONÍVEL DIA" after each
      // day): the amount is the money column filled on every row the balance column leaves empty.
      const balance = byName(mapping.balance_column)!;
      const amount = candidates.find((p) => p.filled >= n * 0.5 && p.cells.every((c, i) => c !== "" || balance.cells[i] !== ""));
      if (amount !== undefined) mapping.amount_column = amount.name;
    }
  }
  // A sign column no name told: every row S or H, Af or Bij, Debit or Credit … beside an amount.
  if (mapping.sign_column === undefined && mapping.amount_column !== undefined && given.sign_column === undefined) {
    const sign = profiles.find((p) => !taken().has(p.name) && p.filled > 0 && isIndicatorColumn(p.cells.filter((c) => c !== "")));
    if (sign !== undefined) mapping.sign_column = sign.name;
  }
  // A running balance no name told: the numeric column that moves by each row's signed amount.
  const signed = signedAmounts();
  if (mapping.balance_column === undefined && given.balance_column === undefined && signed !== null) {
    const balance = balanceFor(signed, firstPaired(money().filter((p) => p.filled >= n * 0.9)));
    if (balance !== undefined) mapping.balance_column = balance.name;
  }
  if (mapping.fee_column === undefined && given.fee_column === undefined && signed !== null) {
    // The balance a name found, else a numeric column on half the rows at least (rows not booked have none).
    const balances = mapping.balance_column !== undefined ? [byName(mapping.balance_column)!] : money().filter((p) => p.filled >= n * 0.5);
    const found = feeFor(signed, balances);
    if (found !== undefined) {
      mapping.fee_column = found.fee.name;
      mapping.balance_column ??= found.balance.name;
    }
  }
  // A currency column: ISO 4217 codes on every row ("DEB" or "BGC", a booking type, is none).
  if (mapping.currency_column === undefined && given.currency_column === undefined) {
    const currency = profiles.find((p) => !taken().has(p.name) && p.filled >= n * 0.9 && p.cells.every((c) => c === "" || CURRENCIES.has(c)));
    if (currency !== undefined) mapping.currency_column = currency.name;
  }

  /** Each row's amount in cents, signed as the mapping reads it; null when the mapping has no amount yet. */
  function signedAmounts(): (number | null)[] | null {
    if (mapping.amount_column !== undefined) {
      const amounts = centsOf(byName(mapping.amount_column)!);
      if (mapping.sign_column === undefined) return amounts;
      const signs = byName(mapping.sign_column)!.cells.map(indicatorOf);
      return amounts.map((v, i) => (v === null || signs[i] === null ? v : signedMagnitude(v, signs[i] === "out" ? -1 : 1)));
    }
    if (mapping.debit_column === undefined || mapping.credit_column === undefined) return null;
    const [debit, credit] = [centsOf(byName(mapping.debit_column)!), centsOf(byName(mapping.credit_column)!)];
    return debit.map((v, i) => signedMagnitude(v, -1) ?? signedMagnitude(credit[i] ?? null, 1));
  }

  function isBalanceOf(p: Profile, pair: readonly [Profile, Profile]): boolean {
    const [a, b] = pair.map(centsOf) as [(number | null)[], (number | null)[]];
    const signed = (sa: 1 | -1) => a.map((v, i) => signedMagnitude(v, sa) ?? signedMagnitude(b[i] ?? null, sa === 1 ? -1 : 1));
    return runsWith(signed(1), centsOf(p)) || runsWith(signed(-1), centsOf(p));
  }

  function choosePair(a: Profile, b: Profile): void {
    const [ca, cb] = [centsOf(a), centsOf(b)];
    // a as money out: a row of a is negative, a row of b positive.
    const asDebit = (debit: (number | null)[], credit: (number | null)[]) =>
      debit.map((v, i) => signedMagnitude(v, -1) ?? signedMagnitude(credit[i] ?? null, 1));
    const others = firstPaired(money().filter((p) => p !== a && p !== b && p.filled >= n * 0.9));
    const balanceIfADebit = balanceFor(asDebit(ca, cb), others);
    const balanceIfBDebit = balanceFor(asDebit(cb, ca), others);
    let debit: Profile;
    if (balanceIfADebit !== undefined && balanceIfBDebit === undefined) {
      debit = a;
      mapping.balance_column ??= balanceIfADebit.name;
    } else if (balanceIfBDebit !== undefined && balanceIfADebit === undefined) {
      debit = b;
      mapping.balance_column ??= balanceIfBDebit.name;
    } else {
      // No balance tells: money out is the column that fills more rows (purchases outnumber the salary
      // and the card's payment), and the person is asked to confirm; a tie is refused.
      const [fa, fb] = [ca.filter((v) => v !== null).length, cb.filter((v) => v !== null).length];
      if (fa === fb)
        throw invalidParams(
          "mapping.debit",
          "the column of money out",
          `mapping.debit: the columns ${JSON.stringify(a.name)} and ${JSON.stringify(b.name)} hold money out and money in, one on each row, and nothing in the file tells which is which. Nothing was imported. Ask the person, then send mapping {"debit":${JSON.stringify(a.name)},"credit":${JSON.stringify(b.name)}} (or the other way round).`,
        );
      debit = fa > fb ? a : b;
      unsure.push("debit_column");
    }
    mapping.debit_column = debit.name;
    mapping.credit_column = (debit === a ? b : a).name;
  }

  // 4. The counterparty and the purpose: varied text, not the same on every row.
  chooseText();
  return { unsure };

  function chooseText(): void {
    const textsNow = () => profiles.filter((p) => !taken().has(p.name) && isTextColumn(p, n) && !namesAKind(p.name));
    // A split by direction is the counterparty even where a name took a general text, filled on rows of both
    // directions, for the payee ("Description" beside "Payer Name"): that text is then the purpose, if it
    // fills more rows than the purpose a name found.
    if (given.payee_column === undefined && given.payer_column === undefined) {
      const general = byName(mapping.payee_column);
      const payer = byName(mapping.payer_column);
      if (payer === undefined || (general !== undefined && filledBothWays(general))) {
        delete mapping.payee_column;
        delete mapping.payer_column;
        // The payer a name found first, then any two columns: names of such pairs are easily read backwards.
        if (splitByDirection(textsNow(), payer) || (payer !== undefined && splitByDirection(textsNow(), undefined))) {
          const named = byName(mapping.description_column);
          if (
            general !== undefined &&
            !taken().has(general.name) &&
            given.description_column === undefined &&
            (named === undefined || general.filled > named.filled)
          )
            mapping.description_column = general.name;
        } else {
          if (general !== undefined) mapping.payee_column = general.name;
          if (payer !== undefined) mapping.payer_column = payer.name;
        }
      }
    }
    const texts = textsNow();
    const payee = byName(mapping.payee_column ?? mapping.payer_column);
    const purpose = byName(mapping.description_column);
    const rest = () => texts.filter((p) => !taken().has(p.name));
    if (payee === undefined) {
      // The counterparty is as varied as the most varied text; of two such, the purpose is the longer.
      const best = mostVaried(purpose === undefined ? rest() : [...rest(), purpose]);
      const pool = rest().filter((p) => best !== undefined && varied(p, best));
      if (purpose === undefined && pool.length >= 2) mapping.description_column = longest(pool)!.name;
      const counterparty = mostVaried(pool.filter((p) => p.name !== mapping.description_column));
      if (counterparty !== undefined) mapping.payee_column = counterparty.name;
      // A purpose a name found that is shorter than the counterparty found beside it is the name of the
      // other party ("Naam / Omschrijving" beside "Mededelingen"): the longer text is the purpose.
      if (
        counterparty !== undefined &&
        purpose !== undefined &&
        given.description_column === undefined &&
        counterparty.averageLength > purpose.averageLength * 1.2
      )
        [mapping.payee_column, mapping.description_column] = [purpose.name, counterparty.name];
    }
    // The purpose: the most varied text left (a booking type is less varied than nothing at all).
    if (mapping.description_column === undefined && (mapping.payee_column !== undefined || mapping.payer_column !== undefined)) {
      const description = mostVaried(rest());
      if (description !== undefined) mapping.description_column = description.name;
    }
    // A purpose that repeats the counterparty on every row behind a booking word ("EUROPESE OVERSCHRIJVING
    // NAAR <payee>", "VIREMENT EUROPEEN <payee>") says nothing of its own: a varied text beside it that does
    // not repeat the counterparty is the purpose (KBC's "Vrije mededeling", Belfius's "Communications").
    const who = mapping.payer_column === undefined ? byName(mapping.payee_column) : undefined;
    const what = byName(mapping.description_column);
    if (given.description_column === undefined && who !== undefined && what !== undefined && repeats(what, who)) {
      const own = mostVaried(rest().filter((p) => p.name !== what.name && !repeats(p, who)));
      if (own !== undefined && own.distinct >= 2) mapping.description_column = own.name;
    }
  }

  /** Whether p holds q's text on every row both fill, with more beside it. */
  function repeats(p: Profile, q: Profile): boolean {
    let both = 0;
    for (let i = 0; i < p.cells.length; i++) {
      const a = (p.cells[i] ?? "").toLowerCase();
      const b = (q.cells[i] ?? "").toLowerCase();
      if (a === "" || b === "") continue;
      if (a.length <= b.length || !a.includes(b)) return false;
      both++;
    }
    return both >= 2;
  }

  /**
   * Counterparty columns split by direction: DKB's payer and payee columns, where the account holder's own
   * name stands in the payer column of money out and the payee column of money in; or Wise's, each filled
   * only on the rows of one direction. The payee of money out is then the one column, of money in the other.
   */
  function filledBothWays(p: Profile): boolean {
    const direction = directions();
    return direction !== null && ["in", "out"].every((d) => p.cells.some((c, i) => c !== "" && direction[i] === d));
  }

  function directions(): ("in" | "out" | null)[] | null {
    const signs = signedAmounts();
    return signs === null ? null : signs.map((v) => (v === null ? null : v < 0 ? "out" : "in"));
  }

  function splitByDirection(texts: readonly Profile[], payer: Profile | undefined): boolean {
    const direction = directions();
    if (direction === null) return false;
    // Names, not free text: a counterparty's name is short.
    const all = firstPaired(profiles.filter((p) => !taken().has(p.name) && p.wordy > 0 && !namesAKind(p.name) && p.averageLength <= 40));
    const isText = new Set(texts);
    // The holder's name: the commonest text of a column on rows of money out (or, for b, in), found once per column.
    const top = (p: Profile, d: "in" | "out") => mostCommon(p.cells.filter((c, i) => direction[i] === d));
    const topOut = new Map(all.map((p) => [p, top(p, "out")]));
    const topIn = new Map(all.map((p) => [p, top(p, "in")]));
    const onlyOn = (p: Profile, d: "in" | "out") => p.filled > 0 && p.wordy >= p.filled * 0.5 && p.cells.every((c, i) => c === "" || direction[i] === d);
    // Read once per column: the pairs below ask it of each column many times.
    const onlyIn = new Map(all.map((p) => [p, onlyOn(p, "in")]));
    const onlyOut = new Map(all.map((p) => [p, onlyOn(p, "out")]));
    for (const a of payer === undefined ? all : [payer])
      for (const b of all) {
        if (a === b) continue;
        // a holds the counterparty of money in (the payer), b of money out (the payee)?
        const [outHolder, inHolder] = [topOut.get(a) ?? top(a, "out"), topIn.get(b)!];
        const holder = outHolder !== "" && inHolder !== "" && outHolder !== inHolder ? "" : outHolder || inHolder;
        let holderRows = 0;
        let rows = 0;
        for (let i = 0; i < n && holder !== ""; i++) {
          contentWork.steps++;
          // A row naming neither (a balance row at the end, "Endsaldo") tells nothing of the pair.
          if (direction[i] === null || (a.cells[i] === "" && b.cells[i] === "")) continue;
          rows++;
          const [own, other] = direction[i] === "in" ? [b.cells[i]!, a.cells[i]!] : [a.cells[i]!, b.cells[i]!];
          if (own === holder && other !== holder) holderRows++;
        }
        const holderSplit = isText.has(a) && isText.has(b) && rows >= 3 && holderRows >= rows * 0.9;
        // Sparse: the payer is filled only on money in, the payee only on money out, each at least once.
        if (holderSplit || ((onlyIn.get(a) ?? onlyOn(a, "in")) && onlyOut.get(b)!)) {
          mapping.payer_column = a.name;
          mapping.payee_column = b.name;
          return true;
        }
      }
    return false;
  }
}

/** A column that names a kind (a category, a booking type, a status, a product) holds neither the counterparty nor the purpose. */
const KINDS = ["categor", "kategor", "typ", "status", "state", "product", "produkt"];
export const namesAKind = (header: string) => {
  const folded = header.toLowerCase();
  return KINDS.some((k) => folded.includes(k));
};

const mostCommon = (cells: readonly string[]): string => {
  const counts = new Map<string, number>();
  for (const c of cells) if (c !== "") counts.set(c, (counts.get(c) ?? 0) + 1);
  let best = "";
  for (const [c, k] of counts) if (k > (counts.get(best) ?? 0)) best = c;
  return best;
};

/** As varied as the other (three quarters of its distinct values at least): not a booking type beside names. */
const varied = (p: Profile, than: Profile | undefined) => than === undefined || p.distinct >= than.distinct * 0.75;
const longest = (ps: readonly Profile[]) => ps.reduce<Profile | undefined>((b, p) => (b === undefined || p.averageLength > b.averageLength ? p : b), undefined);
const mostVaried = (ps: readonly Profile[]) =>
  ps.reduce<Profile | undefined>(
    (b, p) => (b === undefined || p.distinct > b.distinct || (p.distinct === b.distinct && p.averageLength > b.averageLength) ? p : b),
    undefined,
  );

/**
 * Text columns the mapping leaves unread whose words would otherwise be lost (issue 48, third probe): a third
 * varied text beside the counterparty and the purpose (ČSOB's "název účtu protiúčtu", the counterparty's name
 * filled on transfers only, beside a note and a booking type; DBS's "Transaction Ref2", the merchant, beside
 * Ref1). Read by content, as chooseText reads: text on half the rows at least, varied (a booking type repeats,
 * a status or an S/H sign says nothing of its own), not the holder's one name on every row, not a numbered
 * reference, not a column that names a kind, and words on half its rows at least (a booking type is one word:
 * "Lastschrift", "POS"). Its cells are kept in the row's description.
 */
export function moreTextColumns(columns: readonly string[], rows: readonly (readonly string[])[], mapping: Partial<CsvMapping>): string[] {
  const sample = rows.length > MAX_ROWS ? rows.slice(0, MAX_ROWS) : rows;
  const n = sample.length;
  const mapped = new Set(Object.values(mapping).filter((v): v is string => typeof v === "string"));
  const out: string[] = [];
  columns.forEach((name, i) => {
    if (mapped.has(name) || namesAKind(name)) return;
    const p = profileOf(i, name, sample, ".");
    if (!isTextColumn(p, n) || isOneName(p) || p.statuses > 0 || p.dates > 0) return;
    // A booking type is one word ("Lastschrift", "Kartenzahlung", "POS"), and repeats; names and purposes are words.
    if (p.distinct < 2 || p.distinct < p.filled * 0.5) return;
    if (p.cells.filter((c) => /\S\s+\S/.test(c)).length < p.filled * 0.5) return;
    out.push(name);
  });
  return out;
}

/** A cell's words where a row has no other text (PKO BP's "Tytuł: …" in "Opis transakcji" on a fee's row): letters, not a date, number, status or sign. */
export function isWordyCell(cell: string): boolean {
  const c = cell.trim();
  if (c === "" || isDate(c) || notBookedOf(c) !== null || indicatorOf(c) !== null) return false;
  const { letters, digits } = lettersAndDigits(c);
  return isWordy(c, letters, digits);
}
