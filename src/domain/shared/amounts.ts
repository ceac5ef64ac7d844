/**
 * Amount arguments of the wallet and transaction tools: src/money/amount.ts's exact parser, with its
 * MoneyError turned into the invalid_params error that names the field. Also the magnitude bounds of
 * list_transactions, which apply to transactions of several currencies (so of several exponents) at once.
 */
import { AppError, invalidParams } from "../../errors.js";
import { MoneyError, parseAmount, type ParseAmountOptions } from "../../money/amount.js";
import { currencyExponent, isKnownCurrency } from "../../money/currencies.js";
import { limits } from "../../../generated/limits.js";

/** An amount argument in minor units of `currency`, or invalid_params naming `field`. */
export function parseAmountParam(input: unknown, currency: string, field: string, opts: ParseAmountOptions = {}): bigint {
  try {
    return parseAmount(input, currency, field, opts);
  } catch (err) {
    if (err instanceof MoneyError) throw invalidParams(err.field, err.expected, err.message);
    throw err;
  }
}

/** A currency argument the service knows (the schema only checks the shape); answers it. */
export function requireKnownCurrency(currency: string, field = "currency"): string {
  if (!isKnownCurrency(currency)) {
    throw invalidParams(
      field,
      'an active ISO 4217 currency code in upper case, such as "USD", "EUR" or "JPY"',
      `${field}: unknown currency ${JSON.stringify(currency)}; expected an active ISO 4217 code in upper case, such as "USD"`,
    );
  }
  return currency;
}

/**
 * A magnitude bound ("40", "12.345") in the minor units of currencies with `exponent` decimals, rounded
 * towards the inside of the range: a lower bound rounds up, an upper bound rounds down ("0.5" JPY: at
 * least 1 yen, at most 0 yen). Exact: BigInt only.
 */
export function boundInMinorUnits(decimal: string, exponent: number, kind: "min" | "max"): bigint {
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(decimal);
  if (!m)
    throw new AppError("invalid_params", `${kind}_amount: expected a decimal string such as "40.00"`, {
      field: `${kind}_amount`,
      expected: 'a decimal string such as "40.00"',
    });
  const intPart = m[1] ?? "0";
  const frac = m[2] ?? "";
  if (BigInt(intPart) >= limits.amountBelow) {
    // No amount reaches it, and beyond it the bound in minor units could leave BIGINT.
    throw new AppError("invalid_params", `${kind}_amount: must be below ${limits.amountBelow}, the largest amount the service stores`, {
      field: `${kind}_amount`,
      expected: `a decimal string below ${limits.amountBelow}`,
    });
  }
  if (frac.length <= exponent) return BigInt(intPart + frac.padEnd(exponent, "0"));
  const numerator = BigInt(intPart + frac);
  const denominator = 10n ** BigInt(frac.length - exponent);
  const floor = numerator / denominator;
  return kind === "max" || numerator % denominator === 0n ? floor : floor + 1n;
}

export function exponentOf(currency: string): number {
  return isKnownCurrency(currency) ? currencyExponent(currency) : 2;
}
