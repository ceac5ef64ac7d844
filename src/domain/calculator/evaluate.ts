import { Decimal } from "decimal.js";

import { CalculationError, quote } from "./errors.js";
import { LIMITS } from "./limits.js";
import { parse, type Node } from "./parse.js";
import { tokenize } from "./tokenize.js";

export { CalculationError } from "./errors.js";
export type { CalculationErrorReason } from "./errors.js";

export interface CalculationResult {
  /** A plain decimal string: optional "-", digits, optionally "." and digits. Never exponent notation, never "-0". */
  readonly result: string;
  /** The input, trimmed: error positions are offsets into this string. */
  readonly expression: string;
}

/**
 * A private Decimal constructor, so no other module's configuration can change ours (and ours changes no one's).
 * - precision 50: every intermediate operation keeps 50 significant digits, 16 more than the result shows.
 * - rounding ROUND_HALF_EVEN (banker's rounding) for those intermediate operations and for the final rounding of
 *   the result to 34 significant digits / 34 decimal places: unbiased, and the IEEE 754 decimal128 default.
 *   round(x, digits) is the exception: it rounds half away from zero (ROUND_HALF_UP), as people expect from
 *   "round" (round(2.5) = 3, round(2.345, 2) = 2.35).
 * - modulo ROUND_DOWN: a % b has the sign of a, as in JavaScript and C (-7 % 3 = -1).
 * - maxE / minE: results beyond 10^1000 overflow to Infinity (refused as result_too_large) and values below
 *   10^-1000 underflow to 0, which bounds the cost of every operation (a % b computes the integer quotient a / b).
 * - toExpNeg / toExpPos: toString() never switches to exponent notation.
 */
const D = Decimal.clone({
  precision: LIMITS.workingPrecision,
  rounding: Decimal.ROUND_HALF_EVEN,
  modulo: Decimal.ROUND_DOWN,
  maxE: -LIMITS.underflowExponent,
  minE: LIMITS.underflowExponent,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
type D = Decimal;

const MAX_MAGNITUDE = new D(10).pow(LIMITS.maxMagnitudeExponent);
const HUNDRED = new D(100);

/**
 * Evaluates an arithmetic expression exactly in decimal. See docs/calculator.md for the grammar, the percent
 * rule, the functions, the limits and the rounding. Throws CalculationError (and nothing else) on any bad input.
 */
export function evaluateExpression(expression: string): CalculationResult {
  if (typeof expression !== "string") {
    throw new CalculationError("not_a_string", 0, 'The expression must be a string, such as "0.1 + 0.2".');
  }
  const source = expression.trim();
  if (source.length === 0) {
    throw new CalculationError("empty", 0, 'The expression is empty: give an arithmetic expression such as "0.1 + 0.2".');
  }
  if (source.length > LIMITS.maxLength) {
    throw new CalculationError(
      "too_long",
      LIMITS.maxLength,
      `The expression is ${source.length} characters long; at most ${LIMITS.maxLength} are allowed (the excess starts ` +
        `at position ${LIMITS.maxLength}). Split it into several calculations.`,
    );
  }
  const tree = parse(tokenize(source));
  const value = evaluateNode(tree);
  return { result: format(value), expression: source };
}

function evaluateNode(node: Node): D {
  switch (node.kind) {
    case "number":
      return checked(new D(node.text), node.position, node.text);
    case "plus":
      return evaluateNode(node.operand);
    case "negate":
      return evaluateNode(node.operand).neg();
    case "percent":
      return evaluateNode(node.operand).div(HUNDRED);
    case "of":
      return checked(evaluateNode(node.left).times(evaluateNode(node.right)), node.position, "of");
    case "binary":
      return binary(node.operator, evaluateNode(node.left), evaluateNode(node.right), node.position);
    case "call":
      return checked(call(node, node.args.map(evaluateNode)), node.position, node.name);
  }
}

function binary(operator: string, left: D, right: D, position: number): D {
  switch (operator) {
    case "+":
      return checked(left.plus(right), position, operator);
    case "-":
      return checked(left.minus(right), position, operator);
    case "*":
      return checked(left.times(right), position, operator);
    case "/":
    case "%":
      if (right.isZero()) {
        throw new CalculationError(
          "division_by_zero",
          position,
          `Division by zero at position ${position} (${quote(operator)}): the ${
            operator === "/" ? "divisor" : "right operand of the modulo"
          } evaluates to 0. Division and modulo by zero are undefined; check the expression.`,
        );
      }
      return checked(operator === "/" ? left.div(right) : left.mod(right), position, operator);
    case "^":
      return power(left, right, position);
    default:
      throw new Error(`unreachable operator ${operator}`);
  }
}

function power(base: D, exponent: D, position: number): D {
  if (!exponent.isInteger()) {
    throw new CalculationError(
      "not_integer_exponent",
      position,
      `The exponent of "^" at position ${position} is ${display(exponent)}, which is not an integer. Only integer ` +
        `exponents from -${LIMITS.maxExponent} to ${LIMITS.maxExponent} are supported (use sqrt(x) for a square root).`,
    );
  }
  if (exponent.abs().gt(LIMITS.maxExponent)) {
    throw new CalculationError(
      "exponent_too_large",
      position,
      `The exponent of "^" at position ${position} is ${display(exponent)}; its magnitude may be at most ` + `${LIMITS.maxExponent}.`,
    );
  }
  if (base.isZero() && exponent.isNegative()) {
    throw new CalculationError("division_by_zero", position, `Division by zero at position ${position} ("^"): 0 raised to a negative exponent is 1 / 0.`);
  }
  return checked(base.pow(exponent), position, "^");
}

function call(node: Extract<Node, { kind: "call" }>, args: D[]): D {
  const [x] = args as [D, ...D[]];
  switch (node.name) {
    case "round": {
      let digits = 0;
      const digitsArg = args[1];
      if (digitsArg !== undefined) {
        if (!digitsArg.isInteger() || digitsArg.isNegative() || digitsArg.gt(LIMITS.maxRoundDigits)) {
          const at = node.argPositions[1]!;
          throw new CalculationError(
            "invalid_argument",
            at,
            `The digits argument of round at position ${at} is ${display(digitsArg)}; it must be an integer from 0 to ` +
              `${LIMITS.maxRoundDigits}, e.g. round(2.345, 2) = 2.35.`,
          );
        }
        digits = digitsArg.toNumber();
      }
      return x.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
    }
    case "floor":
      return x.floor();
    case "ceil":
      return x.ceil();
    case "abs":
      return x.abs();
    case "min":
      return args.reduce((a, b) => (b.lt(a) ? b : a));
    case "max":
      return args.reduce((a, b) => (b.gt(a) ? b : a));
    case "sqrt":
      if (x.isNegative() && !x.isZero()) {
        throw new CalculationError(
          "sqrt_of_negative",
          node.position,
          `sqrt at position ${node.position} was given ${display(x)}, a negative number; the square root is only ` +
            "defined here for numbers >= 0 (use abs(x) if the sign does not matter).",
        );
      }
      return x.sqrt();
  }
}

/** Every number and every intermediate result must be finite and smaller than 10^30 in magnitude. */
function checked(value: D, position: number, text: string): D {
  if (!value.isFinite() || value.abs().gte(MAX_MAGNITUDE)) {
    throw new CalculationError(
      "result_too_large",
      position,
      `The result of ${quote(text)} at position ${position} is too large: every number and every intermediate result ` +
        `must be smaller than 10^${LIMITS.maxMagnitudeExponent} in magnitude.`,
    );
  }
  return value;
}

/**
 * The result: rounded once (half-even) to at most 34 significant digits and at most 34 decimal places, printed in
 * plain notation without trailing zeros; a zero (also a negative one, or a tiny value rounded away) prints "0".
 */
function format(value: D): string {
  if (value.isZero()) return "0";
  const decimalPlaces = Math.min(LIMITS.resultMaxDecimalPlaces, LIMITS.resultSignificantDigits - 1 - value.e);
  const rounded = value.toDecimalPlaces(Math.max(0, decimalPlaces), Decimal.ROUND_HALF_EVEN);
  if (rounded.abs().gte(MAX_MAGNITUDE)) {
    throw new CalculationError(
      "result_too_large",
      0,
      `The result rounds to 10^${LIMITS.maxMagnitudeExponent} or more, which is too large: results must be smaller ` +
        `than 10^${LIMITS.maxMagnitudeExponent} in magnitude.`,
    );
  }
  if (rounded.isZero()) return "0";
  return rounded.toFixed();
}

/** A bounded rendering of an intermediate value for error messages. */
function display(value: D): string {
  if (value.isZero()) return "0";
  if (value.e >= -7 && value.e < LIMITS.maxMagnitudeExponent) return value.toSignificantDigits(12).toFixed();
  return value.toSignificantDigits(6).toExponential();
}
