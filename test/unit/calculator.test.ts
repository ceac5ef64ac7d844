/**
 * The calculate tool's pure domain module: results worked out by hand, every error reason with its position,
 * and property-based tests (fast-check) that the calculator never crashes, hangs or throws anything other than
 * CalculationError, and that its integer and short-decimal arithmetic is exact. docs/calculator.md is the spec.
 */
import { expect } from "chai";
import fc from "fast-check";

import { CalculationError, evaluateExpression } from "../../src/domain/calculator/evaluate.js";
import type { CalculationErrorReason } from "../../src/domain/calculator/evaluate.js";

const REASONS: ReadonlySet<CalculationErrorReason> = new Set<CalculationErrorReason>([
  "not_a_string",
  "empty",
  "too_long",
  "unexpected_character",
  "invalid_number",
  "exponent_notation",
  "thousands_separator",
  "too_many_digits",
  "unknown_identifier",
  "unknown_function",
  "unexpected_token",
  "unexpected_end",
  "unclosed_parenthesis",
  "too_deep",
  "wrong_argument_count",
  "invalid_argument",
  "division_by_zero",
  "not_integer_exponent",
  "exponent_too_large",
  "result_too_large",
  "sqrt_of_negative",
]);

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

function check(condition: boolean, what: string, detail: unknown): void {
  if (!condition) throw new Error(`expected ${what}, got ${JSON.stringify(detail)}`);
}

function calculationError(expression: string): CalculationError {
  try {
    evaluateExpression(expression);
  } catch (error) {
    if (error instanceof CalculationError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to throw a CalculationError`);
}

describe("calculator: evaluateExpression", function () {
  // [expression, result], each worked out by hand (decimal arithmetic, then the documented rounding).
  const table: ReadonlyArray<readonly [string, string]> = [
    // exact decimals
    ["0.1 + 0.2", "0.3"],
    ["0.3 - 0.1", "0.2"],
    ["1 - 0.9", "0.1"],
    ["0.1 * 3", "0.3"],
    ["1.10 + 2.20", "3.3"],
    ["1.5 * 1.5", "2.25"],
    ["7 / 2", "3.5"],
    ["1 / 8", "0.125"],
    ["19.99 * 3", "59.97"],
    ["1234.56 - 1234.55", "0.01"],
    [".5 + .25", "0.75"],
    ["007 + 1", "8"],
    ["  7  ", "7"],
    // precedence and associativity
    ["1 + 2 * 3", "7"],
    ["(1 + 2) * 3", "9"],
    ["10 - 4 - 3", "3"],
    ["10 - (4 - 3)", "9"],
    ["100 / 10 / 5", "2"],
    ["100 / (10 / 5)", "50"],
    ["2 * 3 ^ 2", "18"],
    ["2 ^ 3 ^ 2", "512"],
    ["(2 ^ 3) ^ 2", "64"],
    ["2 ^ 3 % 3", "2"],
    ["2 * (3 + (4 - 1) * 2)", "18"],
    ["((((1 + 2))))", "3"],
    // unary signs and powers: -2^2 = -(2^2), as in mathematics
    ["-2 ^ 2", "-4"],
    ["(-2) ^ 2", "4"],
    ["-2 ^ 3", "-8"],
    ["2 ^ -2", "0.25"],
    ["(-2) ^ -3", "-0.125"],
    ["2 ^ 0", "1"],
    ["0 ^ 0", "1"],
    ["2 * -3", "-6"],
    ["2 - -3", "5"],
    ["--5", "5"],
    ["+5", "5"],
    ["-+-5", "5"],
    // percent: postfix % divides by 100; X% of Y = X/100 * Y, binding tighter than * and /
    ["80 * 15%", "12"],
    ["15% of 80", "12"],
    ["15%of 80", "12"],
    ["50%", "0.5"],
    ["(20 + 30)%", "0.5"],
    ["100 + 10%", "100.1"],
    ["100 * (1 + 10%)", "110"],
    ["200 - 15% of 200", "170"],
    ["10 + 15% of 80", "22"],
    ["50% of 50% of 80", "20"],
    ["15% of 80 * 2", "24"],
    ["100 / 15% of 80", "8.333333333333333333333333333333333"],
    ["15% of -80", "-12"],
    ["-15% of 80", "-12"],
    ["50% ^ 2", "0.25"],
    ["max(10%, 5%)", "0.1"],
    ["sqrt(4)%", "0.02"],
    // modulo: a % b followed by an operand; the result has the sign of a
    ["10 % 3", "1"],
    ["-7 % 3", "-1"],
    ["7 % (-2)", "1"],
    ["7 % -2", "-1.93"], // percent, not modulo: 7% - 2
    ["7.5 % 2", "1.5"],
    ["10 % (3)", "1"],
    ["5 % 3%", "0.02"], // 5 mod 0.03
    // rounding of results: 34 significant digits, at most 34 decimal places, half-even
    ["1 / 3", "0.3333333333333333333333333333333333"],
    ["2 / 3", "0.6666666666666666666666666666666667"],
    ["10 / 3", "3.333333333333333333333333333333333"],
    ["200000000000000000000 / 3", "66666666666666666666.66666666666667"],
    ["1 / 3 * 3", "1"],
    ["1 / 3 * 3 - 1", "0"],
    ["0.1 ^ 34", "0.0000000000000000000000000000000001"],
    ["0.1 ^ 35", "0"],
    // big exact numbers
    ["90071992547409.93 + 0.01", "90071992547409.94"],
    ["9007199254740992 + 1", "9007199254740993"],
    ["999999999999999999999999999999 - 1", "999999999999999999999999999998"],
    ["2 ^ 96", "79228162514264337593543950336"],
    ["123456789012345678901234567.8901234 * 1", "123456789012345678901234567.8901234"],
    ["1000000 * 1000000", "1000000000000"],
    ["0.000001 * 0.000001", "0.000000000001"],
    // functions
    ["round(2.345, 2)", "2.35"],
    ["round(2.5)", "3"],
    ["round(-2.5)", "-3"],
    ["round(2.5, 0)", "3"],
    ["round(1.005, 2)", "1.01"],
    ["round(-0.4)", "0"],
    ["round(1 / 3, 4)", "0.3333"],
    ["round(123.456)", "123"],
    ["round(1.23, 20)", "1.23"],
    ["floor(2.7)", "2"],
    ["floor(-2.5)", "-3"],
    ["ceil(2.1)", "3"],
    ["ceil(-2.5)", "-2"],
    ["abs(-3.5)", "3.5"],
    ["min(3, 1, 2)", "1"],
    ["max(3, 1, 2)", "3"],
    ["max(-1)", "-1"],
    ["max(1, 2) * min(3, 4)", "6"],
    ["sqrt(16)", "4"],
    ["sqrt(0)", "0"],
    ["sqrt(0.0001)", "0.01"],
    ["sqrt(2)", "1.414213562373095048801688724209698"],
    ["-sqrt(4)", "-2"],
    ["sqrt(abs(-9)) + floor(2.7)", "5"],
    // zero never prints as -0
    ["0 * -1", "0"],
    ["-0", "0"],
    ["-(0)", "0"],
    ["0 / -5", "0"],
    // money
    ["1000 * (1 + 0.05) ^ 3", "1157.625"],
    ["(1 + 5% / 12) ^ 12", "1.0511618978817331898048738909608"],
    ["1.0001 ^ 1000", "1.105165392603232697240184240109059"],
  ];

  it(`has a table of at least 40 hand-worked expressions (${table.length})`, function () {
    expect(table.length).to.be.at.least(40);
  });

  for (const [expression, result] of table) {
    it(`${JSON.stringify(expression)} = ${result}`, function () {
      expect(evaluateExpression(expression)).to.deep.equal({ result, expression: expression.trim() });
    });
  }
});

describe("calculator: errors", function () {
  const deepParens = `${"(".repeat(33)}1${")".repeat(33)}`;
  const deepCalls = `${"abs(".repeat(33)}1${")".repeat(33)}`;
  // [expression, reason, position]
  const errors: ReadonlyArray<readonly [string, CalculationErrorReason, number]> = [
    ["", "empty", 0],
    ["   \n\t", "empty", 0],
    [`${"1+".repeat(128)}1`, "too_long", 256],
    ["1 $ 2", "unexpected_character", 2],
    ["2 × 3", "unexpected_character", 2],
    ["1 + 2 = 3", "unexpected_character", 6],
    ["[1]", "unexpected_character", 0],
    ["1;2", "unexpected_character", 1],
    ["1 + \u{1F600}", "unexpected_character", 4],
    ["5.", "invalid_number", 0],
    ["1.2.3", "invalid_number", 0],
    [".", "invalid_number", 0],
    ["1 + 0x10", "invalid_number", 4],
    ["1_000", "invalid_number", 0],
    ["2pi", "invalid_number", 0],
    ["1e5", "exponent_notation", 0],
    ["2 * 1.5E-3", "exponent_notation", 4],
    ["1,000 + 1", "thousands_separator", 1],
    ["max(1,500)", "thousands_separator", 5],
    ["12345678901234567890123456789.012345", "too_many_digits", 0],
    ["pi * 2", "unknown_identifier", 0],
    ["1 + x", "unknown_identifier", 4],
    ["constructor", "unknown_identifier", 0],
    ["__proto__", "unknown_identifier", 0],
    ["Math.PI", "unknown_identifier", 0],
    ["Infinity", "unknown_identifier", 0],
    ["NaN", "unknown_identifier", 0],
    ["foo(1)", "unknown_function", 0],
    ["eval (1)", "unknown_function", 0],
    ["Round(1)", "unknown_function", 0],
    ["sqrt 4", "unexpected_token", 5],
    ["1 + 2)", "unexpected_token", 5],
    ["* 2", "unexpected_token", 0],
    ["1 + * 2", "unexpected_token", 4],
    ["2 3", "unexpected_token", 2],
    ["2(3)", "unexpected_token", 1],
    ["(1, 2)", "unexpected_token", 2],
    ["()", "unexpected_token", 0],
    ["max(1, )", "unexpected_token", 7],
    ["50%%", "unexpected_token", 3],
    ["2 of 3", "unexpected_token", 2],
    ["of 3", "unexpected_token", 0],
    ["2 ** 3", "unexpected_token", 3],
    ["1 +", "unexpected_end", 3],
    ["-", "unexpected_end", 1],
    ["2 ^", "unexpected_end", 3],
    ["15% of", "unexpected_end", 6],
    ["(1 + 2", "unclosed_parenthesis", 0],
    ["((1)", "unclosed_parenthesis", 0],
    ["round(2.5", "unclosed_parenthesis", 5],
    [deepParens, "too_deep", 32],
    [`${"-".repeat(33)}1`, "too_deep", 32],
    [deepCalls, "too_deep", 32 * 4 + 3],
    [`${"1^".repeat(33)}1`, "too_deep", 32 * 2 + 1],
    ["round(1, 2, 3)", "wrong_argument_count", 0],
    ["min()", "wrong_argument_count", 0],
    ["1 + abs(1, 2)", "wrong_argument_count", 4],
    ["sqrt()", "wrong_argument_count", 0],
    ["round(1.5, 21)", "invalid_argument", 11],
    ["round(1.5, 0.5)", "invalid_argument", 11],
    ["round(1.5, -1)", "invalid_argument", 11],
    ["1 / 0", "division_by_zero", 2],
    ["1 / (2 - 2)", "division_by_zero", 2],
    ["5 % (2 - 2)", "division_by_zero", 2],
    ["0 ^ -1", "division_by_zero", 2],
    ["2 ^ 0.5", "not_integer_exponent", 2],
    ["2 ^ (1 / 3)", "not_integer_exponent", 2],
    ["2 ^ 3%", "not_integer_exponent", 2],
    ["2 ^ 1001", "exponent_too_large", 2],
    ["1 ^ -1001", "exponent_too_large", 2],
    ["10 ^ 30", "result_too_large", 3],
    ["2 ^ 1000", "result_too_large", 2],
    ["1000000000000000 * 1000000000000000", "result_too_large", 17],
    ["1 + 999999999999999999999999999999", "result_too_large", 2],
    ["1000000000000000000000000000000", "result_too_large", 0],
    ["round(999999999999999999999999999999.6)", "result_too_large", 0],
    ["999999999999999999999999999999 + 0.99999", "result_too_large", 0],
    ["sqrt(-1)", "sqrt_of_negative", 0],
    ["1 + sqrt(-0.01)", "sqrt_of_negative", 4],
  ];

  // Messages say where: all but these carry "position N".
  const noPositionInMessage = new Set(["", "   \n\t", "999999999999999999999999999999 + 0.99999"]);

  for (const [expression, reason, position] of errors) {
    it(`${JSON.stringify(expression.length > 40 ? `${expression.slice(0, 40)}…` : expression)} → ${reason} at ${position}`, function () {
      const error = calculationError(expression);
      expect(error).to.be.instanceOf(Error);
      expect(error.name).to.equal("CalculationError");
      expect({ reason: error.reason, position: error.position }).to.deep.equal({ reason, position });
      expect(error.message).to.be.a("string").and.not.equal("");
      if (!noPositionInMessage.has(expression)) expect(error.message).to.include(`position ${position}`);
    });
  }

  it("covers every documented reason", function () {
    const covered = new Set<string>(errors.map(([, reason]) => reason));
    covered.add("not_a_string");
    expect([...REASONS].filter((reason) => !covered.has(reason))).to.deep.equal([]);
  });

  it("refuses a value that is not a string", function () {
    for (const value of [42, null, undefined, { toString: () => "1" }]) {
      const call = () => evaluateExpression(value as unknown as string);
      expect(call).to.throw(CalculationError).with.property("reason", "not_a_string");
    }
  });

  it("accepts exactly the limits: 256 characters, depth 32, 34 digits, exponent 1000", function () {
    expect(evaluateExpression(`${"1+".repeat(127)}11`).result).to.equal("138");
    expect(evaluateExpression(`${"(".repeat(32)}1${")".repeat(32)}`).result).to.equal("1");
    expect(evaluateExpression(`${"-".repeat(32)}1`).result).to.equal("1");
    expect(evaluateExpression("1234567890123456789012345678.901234").result).to.equal("1234567890123456789012345678.901234");
    expect(evaluateExpression("1 ^ 1000").result).to.equal("1");
    expect(evaluateExpression("1 ^ -1000").result).to.equal("1");
    expect(evaluateExpression("999999999999999999999999999999").result).to.equal("999999999999999999999999999999");
  });

  it("positions count from the trimmed expression", function () {
    const error = calculationError("   1 / 0   ");
    expect(error.position).to.equal(2);
  });
});

describe("calculator: properties", function () {
  this.timeout(60_000);

  const grammarPieces = [
    ..."0123456789",
    ".",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "(",
    ")",
    ",",
    " ",
    " ",
    "of",
    " of ",
    "round(",
    "floor(",
    "ceil(",
    "abs(",
    "min(",
    "max(",
    "sqrt(",
    "round",
    "1000",
    "0.5",
    "99999999999999",
    "e",
    "E",
    "_",
    "x",
  ];
  const grammarSoup = fc.array(fc.constantFrom(...grammarPieces), { maxLength: 90 }).map((pieces) => pieces.join(""));

  // Mostly well-formed expressions, so that evaluation (not only parsing) is exercised.
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.oneof(
        fc.integer({ min: 0, max: 1_000_000 }).map(String),
        fc.constantFrom("0", "1", "0.5", "0.001", "3.14159", "99999999999999", "123456789.123456789"),
      ),
      fc.tuple(tie("expr"), fc.constantFrom(" + ", " - ", " * ", " / ", " % ", "^", " of "), tie("expr")).map(([a, op, b]) => `${a}${op}${b}`),
      tie("expr").map((a) => `(${a})`),
      tie("expr").map((a) => `-${a}`),
      tie("expr").map((a) => `${a}%`),
      fc.tuple(fc.constantFrom("round", "floor", "ceil", "abs", "sqrt"), tie("expr")).map(([f, a]) => `${f}(${a})`),
      fc.tuple(tie("expr"), fc.integer({ min: -2, max: 22 })).map(([a, d]) => `round(${a}, ${d})`),
      fc.tuple(fc.constantFrom("min", "max"), fc.array(tie("expr"), { minLength: 0, maxLength: 4 })).map(([f, args]) => `${f}(${args.join(", ")})`),
      fc.integer({ min: -1100, max: 1100 }).map((n) => `1.0001^${n}`),
    ),
  }));

  it("100,000 random strings: a plain decimal result or a CalculationError, nothing else, quickly", function () {
    // The slowest input by wall time, timed again alone: a machine under load can stall any one call (a
    // preemption, a collection), but an input that is slow in itself is slow every time.
    let slowest = { ms: 0, input: "" };
    let results = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: "binary", maxLength: 60 }), grammarSoup, expr), (input) => {
        // Plain checks rather than chai here: 100,000 runs of chai's proxies would dominate the runtime.
        const started = performance.now();
        try {
          const answer = evaluateExpression(input);
          results += 1;
          check(answer.expression === input.trim(), "the expression is echoed back trimmed", answer);
          check(PLAIN_DECIMAL.test(answer.result), "the result is a plain decimal", answer);
          check(!/^-0(\.0*)?$/.test(answer.result), "the result is not a negative zero", answer);
          const [integerPart = "", fraction = ""] = answer.result.replace("-", "").split(".");
          check(integerPart.length <= 30, "the result is below 10^30", answer);
          check(fraction.length <= 34 && !fraction.endsWith("0"), "at most 34 decimals, no trailing zero", answer);
          check(`${integerPart}${fraction}`.replace(/^0+/, "").length <= 34, "at most 34 significant digits", answer);
        } catch (error) {
          if (!(error instanceof CalculationError)) throw error;
          check(REASONS.has(error.reason), "a documented reason", error.reason);
          check(Number.isInteger(error.position) && error.position >= 0 && error.position <= 256, "a position", error.position);
          check(error.message.length > 0 && error.message.length <= 600, "a bounded message", error.message);
        } finally {
          const ms = performance.now() - started;
          if (ms > slowest.ms) slowest = { ms, input };
        }
      }),
      { numRuns: 100_000 },
    );
    const alone = Array.from({ length: 3 }, () => {
      const started = performance.now();
      try {
        evaluateExpression(slowest.input);
      } catch {
        // A CalculationError: timed all the same.
      }
      return performance.now() - started;
    });
    expect(Math.min(...alone), `the slowest input, ${JSON.stringify(slowest.input.slice(0, 80))}, timed alone (ms)`).to.be.below(500);
    expect(results, "some random inputs are valid").to.be.above(1000);
  });

  const integer = fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n });

  it("integer +, -, * and exact / agree with BigInt arithmetic", function () {
    fc.assert(
      fc.property(integer, integer, (a, b) => {
        expect(evaluateExpression(`${a} + ${b}`).result).to.equal(String(a + b));
        expect(evaluateExpression(`${a} - ${b}`).result).to.equal(String(a - b));
        expect(evaluateExpression(`${a} * ${b}`).result).to.equal(String(a * b));
        expect(evaluateExpression(`(${a}) * (${b})`).result).to.equal(String(a * b));
        if (b !== 0n) expect(evaluateExpression(`${a * b} / ${b}`).result).to.equal(String(a));
      }),
      { numRuns: 3000 },
    );
  });

  /** A BigInt scaled by 10^-scale, as the calculator prints it (no trailing zeros, no "-0"). */
  function scaled(units: bigint, scale: number): string {
    const negative = units < 0n;
    const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
    const whole = digits.slice(0, digits.length - scale);
    const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
    const text = fraction === "" ? whole : `${whole}.${fraction}`;
    return negative && /[1-9]/.test(text) ? `-${text}` : text;
  }

  it("decimal + and * with up to 10 decimal places are exact", function () {
    const scale = fc.integer({ min: 0, max: 10 });
    fc.assert(
      fc.property(integer, scale, integer, scale, (a, s, b, t) => {
        const x = scaled(a, s);
        const y = scaled(b, t);
        const common = Math.max(s, t);
        const sum = a * 10n ** BigInt(common - s) + b * 10n ** BigInt(common - t);
        expect(evaluateExpression(`${x} + ${y}`).result).to.equal(scaled(sum, common));
        expect(evaluateExpression(`${x} * ${y}`).result).to.equal(scaled(a * b, s + t));
      }),
      { numRuns: 3000 },
    );
  });
});
