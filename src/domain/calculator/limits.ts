/**
 * The limits of the calculator, in one place. docs/calculator.md documents each of them together with the
 * error reason it produces; tests pin them.
 */
export const LIMITS = Object.freeze({
  /** Characters in the expression, after trimming surrounding whitespace. */
  maxLength: 256,
  /** Nesting: each "(" (also a function call's), each unary sign and each "^" or "of" right operand. */
  maxDepth: 32,
  /** Digits in one number literal (before and after the decimal point together). */
  maxLiteralDigits: 34,
  /** Largest |exponent| accepted by "^". The exponent must also be an integer. */
  maxExponent: 1000,
  /** Every number and every intermediate result must be strictly smaller than 10^30 in magnitude. */
  maxMagnitudeExponent: 30,
  /** Significant digits kept by every intermediate operation (decimal.js precision). */
  workingPrecision: 50,
  /** Significant digits of the result. */
  resultSignificantDigits: 34,
  /** Digits after the decimal point of the result. */
  resultMaxDecimalPlaces: 34,
  /** Intermediate values smaller than 10^-1000 in magnitude underflow to 0 (decimal.js minE). */
  underflowExponent: -1000,
  /** Digits argument of round(x, digits). */
  maxRoundDigits: 20,
});
