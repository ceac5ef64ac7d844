/**
 * Exact money: decimal strings at the tool boundary, BigInt minor units inside, never a float.
 *
 * - `parseAmount` turns a tool argument such as "12.50" into minor units (1250n for USD),
 *   refusing everything that is not a plain decimal string in the currency's precision.
 * - `formatMinor` turns minor units back into the canonical decimal string ("-12.50").
 * - `toMoney` builds the amount object every result carries:
 *   `{ "value": "-12.50", "currency": "USD", "minor": -1250 }`.
 * - `toMinorBigInt` / `sumMinor` normalise what the database drivers hand back: pg returns
 *   BIGINT and SUM(...) as strings, better-sqlite3 returns numbers (or BigInts with
 *   `safeIntegers(true)`).
 *
 * Sign convention (documented for callers): the stored minor units are signed, outflow
 * negative and inflow positive; at the tool boundary the amount is a positive magnitude and the
 * direction is a separate field.
 */
import { FieldError } from "../field-error.js";
import { currencyExponent, isKnownCurrency } from "./currencies.js";
import { amountLimitMinor } from "./ceilings.js";

/**
 * A refused amount or currency. `field` names the argument (for example `amount` or
 * `opening_balance`) and `expected` says what would have been accepted; both go into the
 * `invalid_params` error's `data`. The message starts with the field name.
 */
export class MoneyError extends FieldError {
  override readonly name = "MoneyError";
}

/** Longest input string looked at (a valid amount is at most 19 + 1 + 4 characters plus a sign). */
const MAX_INPUT_LENGTH = 40;

export interface ParseAmountOptions {
  /** Accept a leading "-" (for example an opening balance of a credit card). Default false. */
  signed?: boolean;
  /** Accept zero ("0", "0.00"). Default false: an amount must be positive. */
  allowZero?: boolean;
  /** The argument name used when the currency itself is unknown. Default "currency". */
  currencyField?: string;
}

function decimalsPhrase(currency: string, exponent: number): string {
  if (exponent === 0) return `${currency} has no decimal places`;
  return `${currency} allows at most ${exponent} decimal place${exponent === 1 ? "" : "s"}`;
}

function exampleFor(exponent: number): string {
  // "12.50" for USD, "12" for JPY, "12.500" for KWD, "12.5000" for CLF.
  return exponent === 0 ? '"12"' : `"12.5${"0".repeat(exponent - 1)}"`;
}

/** What a valid amount looks like, for `MoneyError.expected` and tool descriptions. */
export function expectedAmount(currency: string, opts: ParseAmountOptions = {}): string {
  const exponent = isKnownCurrency(currency) ? currencyExponent(currency) : 2;
  const kind = opts.signed ? "a decimal string, optionally negative," : opts.allowZero ? "a non-negative decimal string" : "a positive decimal string";
  const decimals = exponent === 0 ? "with no decimal places" : `with at most ${exponent} decimal place${exponent === 1 ? "" : "s"}`;
  return `${kind} ${decimals}, such as ${exampleFor(exponent)}`;
}

/**
 * Parses a decimal-string amount into minor units of `currency`, exactly (BigInt, no floats).
 *
 * Accepted: `^-?(0|[1-9][0-9]*)(\.[0-9]{1,E})?$` where E is the currency's ISO 4217 exponent
 * (and the "-" only with `signed`). So for USD: "12.50", "12.5", "12", "0.10".
 *
 * Refused, each with a `MoneyError` naming `field`: anything but a string (in particular JSON
 * numbers, which lose precision before we ever see them), the empty string, whitespace,
 * exponents ("1e3"), a "+" sign, a "-" sign unless `signed`, leading zeros ("012"), a bare "."
 * ("12." or ".5"), more decimals than the currency allows (including trailing zeros:
 * "12.500" is refused for USD, "100.0" for JPY), zero unless `allowZero`, and a magnitude of
 * info.x-limits.amount_below major units or more (src/money/ceilings.ts).
 *
 * Returns the minor units: a positive magnitude unless `signed` is set.
 */
export function parseAmount(input: unknown, currency: string, field: string, opts: ParseAmountOptions = {}): bigint {
  if (!isKnownCurrency(currency)) {
    const currencyField = opts.currencyField ?? "currency";
    throw new MoneyError(
      currencyField,
      'an active ISO 4217 currency code in upper case, such as "USD", "EUR" or "JPY"',
      `unknown currency ${JSON.stringify(currency)}; expected an active ISO 4217 code in upper case, such as "USD"`,
    );
  }
  const exponent = currencyExponent(currency);
  const expected = expectedAmount(currency, opts);

  if (typeof input === "number" || typeof input === "bigint") {
    throw new MoneyError(
      field,
      expected,
      `must be a decimal string such as ${exampleFor(exponent)}, not a JSON number (got ${String(input)}); write the amount in quotes`,
    );
  }
  if (typeof input !== "string") {
    const got = input === null ? "null" : Array.isArray(input) ? "an array" : typeof input;
    throw new MoneyError(field, expected, `must be a decimal string such as ${exampleFor(exponent)}, got ${got}`);
  }
  if (input.length === 0) {
    throw new MoneyError(field, expected, `must not be empty; expected ${expected}`);
  }
  const shown = input.length > MAX_INPUT_LENGTH ? `${JSON.stringify(input.slice(0, MAX_INPUT_LENGTH))}...` : JSON.stringify(input);
  if (input.length > MAX_INPUT_LENGTH) {
    throw new MoneyError(field, expected, `is too long (${input.length} characters); expected ${expected}, got ${shown}`);
  }

  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(input);
  if (!m) {
    let why = `is not a plain decimal number; expected ${expected}, got ${shown}`;
    if (/^\s|\s$/.test(input)) why = `must not contain spaces; expected ${expected}, got ${shown}`;
    else if (/^[+-]?(?:[0-9]*\.)?[0-9]*[eE][+-]?[0-9]+$/.test(input)) why = `must not use exponent notation; expected ${expected}, got ${shown}`;
    else if (input.startsWith("+")) why = `must not have a "+" sign; expected ${expected}, got ${shown}`;
    else if (/^-?\.[0-9]/.test(input)) why = `needs a digit before the decimal point (write "0.5", not ".5"); got ${shown}`;
    else if (/^-?[0-9]+\.$/.test(input)) why = `must not end with a decimal point; expected ${expected}, got ${shown}`;
    else if (input.includes(",")) why = `must use "." as the decimal separator and no thousands separators; expected ${expected}, got ${shown}`;
    throw new MoneyError(field, expected, why);
  }
  const sign = m[1] ?? "";
  const intPart = m[2] ?? "";
  const fracPart = m[3] ?? "";

  if (sign === "-" && !opts.signed) {
    throw new MoneyError(field, expected, `must be a positive amount without a sign (the direction is a separate field), got ${shown}`);
  }
  if (intPart.length > 1 && intPart.startsWith("0")) {
    throw new MoneyError(field, expected, `must not have leading zeros; expected ${expected}, got ${shown}`);
  }
  if (fracPart.length > exponent) {
    throw new MoneyError(field, expected, `${decimalsPhrase(currency, exponent)}, got ${shown}`);
  }

  const magnitude = BigInt(intPart + fracPart.padEnd(exponent, "0"));
  if (magnitude === 0n && !opts.allowZero) {
    throw new MoneyError(field, expected, `must be greater than zero, got ${shown}`);
  }
  const limit = amountLimitMinor(currency);
  if (magnitude >= limit) {
    throw new MoneyError(field, expected, `is too large: an amount must be below ${formatMinor(limit, currency)} ${currency}, got ${shown}`);
  }
  return sign === "-" ? -magnitude : magnitude;
}

/**
 * Formats minor units as the canonical decimal string of `currency`: always exactly E decimals
 * ("-12.50", "0.10", "1000" for JPY, "1.234" for KWD), "-" for negatives, no grouping. Exact for
 * any BigInt (no float involved). Throws a RangeError for an unknown currency.
 */
export function formatMinor(minor: bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString();
  if (exponent === 0) return negative ? `-${digits}` : digits;
  const padded = digits.padStart(exponent + 1, "0");
  const intPart = padded.slice(0, padded.length - exponent);
  const fracPart = padded.slice(padded.length - exponent);
  return `${negative ? "-" : ""}${intPart}.${fracPart}`;
}

/** A value a database driver may hand back for a BIGINT column or a SUM of one. */
export type MinorLike = bigint | number | string;

/**
 * Normalises a minor-unit integer from a driver to a BigInt, refusing anything lossy or
 * non-integral (a programming or data error, so a RangeError/TypeError, not a MoneyError):
 * - bigint: as is (better-sqlite3 with `safeIntegers(true)`);
 * - number: must be a safe integer (better-sqlite3 silently rounds BIGINTs beyond 2^53, so a
 *   number outside ±(2^53 − 1) cannot be trusted and is refused);
 * - string: an optionally negative integer in decimal (pg returns int8 and SUM(int8) -- which
 *   is `numeric` -- as strings such as "-1250"); a `numeric` scale of zeros ("1250.00") is
 *   accepted, any non-zero fraction is refused.
 */
export function toMinorBigInt(value: MinorLike): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`minor units must be a safe integer, got ${String(value)} (read BIGINT columns as BigInt or strings to stay exact)`);
    }
    return BigInt(value);
  }
  if (typeof value === "string") {
    const m = /^(-?[0-9]+)(?:\.0+)?$/.exec(value);
    if (!m || m[1] === undefined) {
      throw new RangeError(`minor units must be an integer string, got ${JSON.stringify(value)}`);
    }
    return BigInt(m[1]);
  }
  throw new TypeError(`minor units must be a bigint, number or string, got ${value === null ? "null" : typeof value}`);
}

/** The amount object carried by every result. */
export interface Money {
  /** The exact signed decimal string in the currency's precision, e.g. "-12.50". Always exact. */
  value: string;
  /** The ISO 4217 code. */
  currency: string;
  /**
   * The signed minor units as a JSON number, e.g. -1250. Exact only within ±(2^53 − 1)
   * (about ±90 trillion USD); beyond that it is the nearest double and `value` is the
   * authority.
   */
  minor: number;
}

/**
 * Builds `{ value, currency, minor }` from minor units as any driver returns them
 * (`bigint`, `number` or `string`; see `toMinorBigInt`). `value` is always exact; `minor` is
 * exact within ±(2^53 − 1) only.
 */
export function toMoney(minor: MinorLike, currency: string): Money {
  const exact = toMinorBigInt(minor);
  return { value: formatMinor(exact, currency), currency, minor: Number(exact) };
}

/** Sums minor units exactly, whatever mix of `bigint`, `number` and `string` the drivers return. */
export function sumMinor(values: Iterable<MinorLike>): bigint {
  let total = 0n;
  for (const v of values) total += toMinorBigInt(v);
  return total;
}
