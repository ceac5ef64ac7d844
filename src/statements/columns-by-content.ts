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
 *   - the counterparty is varied text that is not the same on every row; the purpose the longest one.
 * What content cannot tell is not guessed silently: a pair whose direction no balance confirms is read
 * by which column fills more rows (debits outnumber credits) and reported unsure, and one whose columns
 * fill as many rows each is refused, naming the mapping to send.
 */
import { invalidParams } from "../errors.js";
import { NOT_A_BALANCE } from "./csv-preamble.js";
import { isIndicatorColumn } from "./csv-sign.js";
import { parseDate } from "./dates.js";
import { guessDecimal, parseDecimal } from "./numbers.js";
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
  dates: number;
  numbers: number;
  negatives: number;
  /** Cells of digits only (a check number, a card's last four, a reference): not money by themselves. */
  plainIntegers: number;
  /** Cells with words (letters, not a code such as an IBAN or a BIC). */
  wordy: number;
  distinct: number;
  averageLength: number;
  decimal: "," | ".";
}

const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/;
const BIC = /^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/;

function isWordy(cell: string): boolean {
  const compact = cell.replace(/\s+/g, "");
  if (IBAN.test(compact) || BIC.test(compact)) return false;
  const letters = (cell.match(/\p{L}/gu) ?? []).length;
  const digits = (cell.match(/\d/g) ?? []).length;
  return letters >= 2 && letters > digits;
}

const isDate = (cell: string) => parseDate(cell, "day_first") !== null || parseDate(cell, "month_first") !== null;

function profileOf(index: number, name: string, rows: readonly (readonly string[])[], fallback: "," | "."): Profile {
  const cells = rows.map((r) => (r[index] ?? "").trim());
  const filledCells = cells.filter((c) => c !== "");
  const decimal = guessDecimal(filledCells, fallback);
  let dates = 0;
  let numbers = 0;
  let negatives = 0;
  let plainIntegers = 0;
  let wordy = 0;
  for (const c of filledCells) {
    if (isDate(c)) dates++;
    const n = parseDecimal(c, decimal);
    if (n !== null) {
      numbers++;
      if (n.startsWith("-")) negatives++;
      if (/^\d+$/.test(c)) plainIntegers++;
    }
    if (isWordy(c)) wordy++;
  }
  return {
    index,
    name,
    cells,
    filled: filledCells.length,
    dates,
    numbers,
    negatives,
    plainIntegers,
    wordy,
    distinct: new Set(filledCells.map((c) => c.toLowerCase())).size,
    averageLength: filledCells.length === 0 ? 0 : filledCells.reduce((n, c) => n + c.length, 0) / filledCells.length,
    decimal,
  };
}

/** Every row's cell the same (three rows or more): the account holder, the own IBAN, the currency. */
const isConstant = (p: Profile, rows: number) => rows >= 3 && p.filled === rows && p.distinct === 1;
const isDateColumn = (p: Profile) => p.filled > 0 && p.dates >= p.filled * 0.8;
/** Numbers in every filled cell, not dates, and not only plain integers (a check number or a card's last four). */
const isMoneyColumn = (p: Profile) => p.filled > 0 && p.numbers === p.filled && p.dates < p.filled && p.plainIntegers < p.filled;
const isTextColumn = (p: Profile, rows: number) =>
  p.filled >= Math.max(1, rows * 0.5) && p.wordy >= p.filled * 0.5 && !isConstant(p, rows) && !isIndicatorColumn(p.cells.filter((c) => c !== ""));

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
  let pairs = 0;
  let forward = true;
  let backward = true;
  for (let i = 1; i < amount.length; i++) {
    const [b0, b1, a0, a1] = [balance[i - 1], balance[i], amount[i - 1] ?? 0, amount[i] ?? 0];
    if (b0 === null || b0 === undefined || b1 === null || b1 === undefined) continue;
    pairs++;
    if (b1 - b0 !== a1) forward = false;
    if (b0 - b1 !== a0) backward = false;
  }
  return pairs >= 2 && (forward || backward);
}

const signedMagnitude = (c: number | null, sign: 1 | -1) => (c === null ? null : sign * Math.abs(c));

export interface ContentResult {
  unsure: UnsureColumn[];
}

/** Completes `input.mapping` from the cells: see the module comment. */
export function chooseColumnsByContent(input: ContentInput): ContentResult {
  const { columns, rows, mapping, given } = input;
  const n = rows.length;
  const profiles = columns.map((name, i) => profileOf(i, name, rows, input.decimalFallback));
  const byName = (c: string | undefined) => (c === undefined ? undefined : profiles[columns.indexOf(c)]);
  const unsure: UnsureColumn[] = [];

  // 1. A column chosen by its name must hold what the name says; the person's own choice stands.
  const keep = (key: keyof CsvMapping, ok: (p: Profile) => boolean) => {
    const column = mapping[key];
    if (typeof column !== "string" || given[key] !== undefined) return;
    const p = byName(column);
    if (p !== undefined && !ok(p)) delete mapping[key];
  };
  keep("date_column", isDateColumn);
  for (const key of ["amount_column", "debit_column", "credit_column", "balance_column"] as const)
    keep(key, (p) => p.filled === 0 || (p.numbers === p.filled && p.dates < p.filled));
  // The account holder's own name (or account) on every row is never the other party.
  for (const key of ["payee_column", "payer_column", "description_column"] as const) keep(key, (p) => p.filled === 0 || (!isConstant(p, n) && p.wordy > 0));

  const taken = () => new Set(Object.values(mapping).filter((v): v is string => typeof v === "string"));

  // 2. The date: the first column of dates.
  if (mapping.date_column === undefined) mapping.date_column = profiles.find((p) => isDateColumn(p) && p.filled >= n * 0.8)?.name;

  // 3. The money.
  const money = () => profiles.filter((p) => !taken().has(p.name) && isMoneyColumn(p) && !isConstant(p, n));
  const centsOf = (p: Profile) => p.cells.map((c) => cents(c, p.decimal));
  const hasMoney = () => mapping.amount_column !== undefined || mapping.debit_column !== undefined || mapping.credit_column !== undefined;
  /** Two columns of which no row fills both, and together fill most rows. */
  const complementary = (a: Profile, b: Profile) => {
    const [ca, cb] = [centsOf(a), centsOf(b)];
    let either = 0;
    for (let i = 0; i < n; i++) {
      if (ca[i] !== null && cb[i] !== null) return false;
      if (ca[i] !== null || cb[i] !== null) either++;
    }
    return ca.some((v) => v !== null) && cb.some((v) => v !== null) && either >= n * 0.9;
  };
  /** A column of the candidates that is the running balance of the given signed amounts. */
  // An available balance ("Disponible", "Available") runs with the amounts too, but is not the ledger's.
  const balanceFor = (amounts: readonly (number | null)[], candidates: readonly Profile[]) =>
    (mapping.balance_column !== undefined ? [byName(mapping.balance_column)!] : candidates).find(
      (p) => runsWith(amounts, centsOf(p)) && !NOT_A_BALANCE.some((word) => p.name.toLowerCase().replace(/[^a-z]/g, "").includes(word)),
    );

  // One column of a pair known by its name: its partner is the column that fills the other rows.
  if (mapping.amount_column === undefined && (mapping.debit_column === undefined) !== (mapping.credit_column === undefined)) {
    const known = byName(mapping.debit_column ?? mapping.credit_column)!;
    const partner = money().find((p) => complementary(known, p));
    if (partner !== undefined) mapping[mapping.debit_column === undefined ? "debit_column" : "credit_column"] = partner.name;
  }
  if (!hasMoney()) {
    const candidates = money();
    const pair = candidates.flatMap((a, i) => candidates.slice(i + 1).filter((b) => complementary(a, b)).map((b) => [a, b] as const))[0];
    const full = candidates.filter((p) => p.filled >= n * 0.9);
    if (pair !== undefined && !full.some((p) => p.negatives > 0 && p.negatives < p.filled && !isBalanceOf(p, pair))) {
      choosePair(pair[0], pair[1]);
    } else if (full.length > 0) {
      // A signed amount and perhaps its running balance: the amount is the column the other runs with.
      let amount = full[0]!;
      for (const a of full) {
        const balance = balanceFor(centsOf(a), full.filter((p) => p !== a));
        if (balance !== undefined) {
          amount = a;
          if (mapping.balance_column === undefined) mapping.balance_column = balance.name;
          break;
        }
      }
      mapping.amount_column = amount.name;
    }
  }
  // A running balance no name told: the numeric column that moves by each row's amount (a signed amount;
  // a sign column is read later, so an amount with one is left to the names).
  if (mapping.balance_column === undefined && mapping.amount_column !== undefined && given.balance_column === undefined) {
    const amount = byName(mapping.amount_column)!;
    if (amount.negatives > 0) {
      const balance = balanceFor(centsOf(amount), money().filter((p) => p.filled >= n * 0.9));
      if (balance !== undefined) mapping.balance_column = balance.name;
    }
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
    const others = money().filter((p) => p !== a && p !== b && p.filled >= n * 0.9);
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
          "mapping.debit_column",
          "the column of money out",
          `mapping.debit_column: the columns ${JSON.stringify(a.name)} and ${JSON.stringify(b.name)} hold money out and money in, one each, and nothing in the file tells which is which. Send mapping.debit_column and mapping.credit_column naming them, e.g. {"debit_column":${JSON.stringify(a.name)},"credit_column":${JSON.stringify(b.name)}}.`,
        );
      debit = fa > fb ? a : b;
      unsure.push("debit_column");
    }
    mapping.debit_column = debit.name;
    mapping.credit_column = (debit === a ? b : a).name;
  }

  // 4. The counterparty and the purpose: varied text, not the same on every row.
  const texts = profiles.filter((p) => !taken().has(p.name) && isTextColumn(p, n));
  const payee = byName(mapping.payee_column ?? mapping.payer_column);
  const purpose = byName(mapping.description_column);
  const varied = (p: Profile, than: Profile | undefined) => than === undefined || p.distinct >= than.distinct * 0.75;
  const longest = (ps: readonly Profile[]) => ps.reduce<Profile | undefined>((b, p) => (b === undefined || p.averageLength > b.averageLength ? p : b), undefined);
  const mostVaried = (ps: readonly Profile[]) =>
    ps.reduce<Profile | undefined>((b, p) => (b === undefined || p.distinct > b.distinct || (p.distinct === b.distinct && p.averageLength > b.averageLength) ? p : b), undefined);
  if (payee === undefined && purpose === undefined) {
    const best = mostVaried(texts);
    const pool = texts.filter((p) => best !== undefined && varied(p, best));
    const description = pool.length >= 2 ? longest(pool) : undefined;
    const counterparty = mostVaried(pool.filter((p) => p !== description && (description === undefined || varied(p, description))));
    if (counterparty !== undefined) mapping.payee_column = counterparty.name;
    if (description !== undefined) mapping.description_column = description.name;
  } else if (payee === undefined && purpose !== undefined) {
    const counterparty = mostVaried(texts.filter((p) => varied(p, purpose) && p.averageLength <= purpose.averageLength));
    if (counterparty !== undefined) mapping.payee_column = counterparty.name;
  } else if (payee !== undefined && purpose === undefined && mapping.payer_column === undefined) {
    // The purpose is longer than the names beside it; a category or a booking type is not.
    const description = longest(texts.filter((p) => varied(p, payee) && p.averageLength > payee.averageLength * 1.2));
    if (description !== undefined) mapping.description_column = description.name;
  }
  return { unsure };
}
