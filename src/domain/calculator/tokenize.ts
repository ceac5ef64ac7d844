import { CalculationError, quote } from "./errors.js";
import { FUNCTION_LIST, isFunctionName, type FunctionName } from "./functions.js";
import { LIMITS } from "./limits.js";

export type Operator = "+" | "-" | "*" | "/" | "%" | "^";

export type Token =
  | { readonly kind: "number"; readonly text: string; readonly position: number }
  | { readonly kind: "operator"; readonly text: Operator; readonly position: number }
  | { readonly kind: "function"; readonly text: FunctionName; readonly position: number }
  | { readonly kind: "of" | "lparen" | "rparen" | "comma" | "end"; readonly text: string; readonly position: number };

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const OPERATORS = new Set<string>(["+", "-", "*", "/", "%", "^"]);

/** Hints for characters that a language model (or a person) is likely to type. */
const CHARACTER_HINTS = new Map<string, string>([
  ["×", "use * for multiplication"],
  ["·", "use * for multiplication"],
  ["÷", "use / for division"],
  ["−", "use the ASCII hyphen-minus - for subtraction"],
  ["–", "use the ASCII hyphen-minus - for subtraction"],
  ["—", "use the ASCII hyphen-minus - for subtraction"],
  ["=", "write only the expression, without = or a result"],
  ["[", "use round parentheses ( ) for grouping"],
  ["]", "use round parentheses ( ) for grouping"],
  ["{", "use round parentheses ( ) for grouping"],
  ["}", "use round parentheses ( ) for grouping"],
  ["'", "write numbers without thousands separators, e.g. 1000000"],
  ["$", "write plain numbers without currency symbols"],
  ["€", "write plain numbers without currency symbols"],
  ["£", "write plain numbers without currency symbols"],
  ["¥", "write plain numbers without currency symbols"],
]);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isNameStart = (c: string | undefined): boolean => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_");
const isNameChar = (c: string | undefined): boolean => isNameStart(c) || isDigit(c);

const ALLOWED =
  "Allowed are numbers such as 12 or 0.5, the operators + - * / % ^, parentheses, commas between " +
  `function arguments, the word "of" after a percentage, and the functions ${FUNCTION_LIST}.`;

/**
 * Splits the (already trimmed and length-checked) expression into tokens, ending with one "end" token.
 * Everything a number literal can get wrong is refused here, with the literal's position.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (WHITESPACE.has(c)) {
      i += 1;
    } else if (isDigit(c) || c === ".") {
      i = readNumber(source, i, tokens);
    } else if (isNameStart(c)) {
      i = readName(source, i, tokens);
    } else if (OPERATORS.has(c)) {
      if (c === "*" && source[i + 1] === "*") {
        throw new CalculationError("unexpected_token", i + 1, `Unexpected "*" at position ${i + 1} ("**"): use ^ for powers, e.g. 2^3.`);
      }
      tokens.push({ kind: "operator", text: c as Operator, position: i });
      i += 1;
    } else if (c === "(") {
      tokens.push({ kind: "lparen", text: c, position: i });
      i += 1;
    } else if (c === ")") {
      tokens.push({ kind: "rparen", text: c, position: i });
      i += 1;
    } else if (c === ",") {
      tokens.push({ kind: "comma", text: c, position: i });
      i += 1;
    } else {
      const char = String.fromCodePoint(source.codePointAt(i)!);
      const hint = CHARACTER_HINTS.get(char);
      throw new CalculationError(
        "unexpected_character",
        i,
        `Unexpected character ${quote(char)} at position ${i}. ${hint !== undefined ? `Hint: ${hint}. ` : ""}${ALLOWED}`,
      );
    }
  }
  tokens.push({ kind: "end", text: "end of expression", position: source.length });
  return tokens;
}

/**
 * A number literal is `digits`, `digits.digits` or `.digits`. Refused: a trailing point (`5.`), a second
 * point, exponent notation (`1e5`), letters or `_` glued to the number (`0x10`, `1_000`, `5kg`), and a
 * comma used as a thousands separator (`1,000`, see `looksLikeThousandsSeparator`).
 */
function readNumber(source: string, start: number, tokens: Token[]): number {
  let i = start;
  while (isDigit(source[i])) i += 1;
  const hasPoint = source[i] === ".";
  if (hasPoint) {
    i += 1;
    while (isDigit(source[i])) i += 1;
  }
  const text = source.slice(start, i);

  if (source[i] === "." || text === "." || text.endsWith(".")) {
    let end = i;
    while (isDigit(source[end]) || source[end] === ".") end += 1;
    const bad = source.slice(start, end);
    throw new CalculationError(
      "invalid_number",
      start,
      `Invalid number ${quote(bad)} at position ${start}: a number is digits with at most one decimal point, ` +
        "and the point must be followed by digits (write 5 or 5.0, not 5.; 0.5 or .5).",
    );
  }

  const next = source[i];
  if ((next === "e" || next === "E") && (isDigit(source[i + 1]) || (/[+-]/.test(source[i + 1] ?? "") && isDigit(source[i + 2])))) {
    let end = i + 1;
    if (!isDigit(source[end])) end += 1;
    while (isDigit(source[end])) end += 1;
    throw new CalculationError(
      "exponent_notation",
      start,
      `Exponent notation ${quote(source.slice(start, end))} at position ${start} is not supported: ` +
        "write the number out in full (100000, not 1e5) or use a power (10^5).",
    );
  }
  if (isNameChar(next)) {
    let end = i;
    while (isNameChar(source[end])) end += 1;
    const bad = source.slice(start, end);
    const hint =
      next === "_"
        ? "Numbers are written without separators: 1000000, not 1_000_000."
        : "Numbers are plain decimal digits (no hex, units or letters); put an operator between a number and a name, e.g. 2 * sqrt(2).";
    throw new CalculationError("invalid_number", start, `Invalid number ${quote(bad)} at position ${start}. ${hint}`);
  }
  if (!hasPoint && looksLikeThousandsSeparator(source, i)) {
    throw new CalculationError(
      "thousands_separator",
      i,
      `The comma at position ${i} in ${quote(source.slice(start, i + 4))} looks like a thousands separator, ` +
        "which is not allowed: write 1000000, not 1,000,000. If you meant separate function arguments, put a space " +
        "after the comma, e.g. max(1, 500).",
    );
  }

  const digits = text.replace(".", "");
  if (digits.length > LIMITS.maxLiteralDigits) {
    throw new CalculationError(
      "too_many_digits",
      start,
      `The number at position ${start} (${quote(text)}) has ${digits.length} digits; a number may have at most ` +
        `${LIMITS.maxLiteralDigits} digits in total.`,
    );
  }
  const integerDigits = (text.split(".")[0] ?? "").replace(/^0+/, "");
  if (integerDigits.length > LIMITS.maxMagnitudeExponent) {
    throw new CalculationError(
      "result_too_large",
      start,
      `The number at position ${start} (${quote(text)}) is too large: every number and every intermediate ` +
        `result must be smaller than 10^${LIMITS.maxMagnitudeExponent} in magnitude.`,
    );
  }

  tokens.push({ kind: "number", text: text.startsWith(".") ? `0${text}` : text, position: start });
  return i;
}

/**
 * `1,000`: a comma right after an integer literal (no spaces), followed by exactly three digits that are not
 * followed by a further digit. Such a comma is refused even inside a function call (`max(1,500)`): the caller
 * who meant two arguments is told to add a space, so the ambiguity never resolves silently.
 */
function looksLikeThousandsSeparator(source: string, i: number): boolean {
  return source[i] === "," && isDigit(source[i + 1]) && isDigit(source[i + 2]) && isDigit(source[i + 3]) && !isDigit(source[i + 4]);
}

function readName(source: string, start: number, tokens: Token[]): number {
  let i = start;
  while (isNameChar(source[i])) i += 1;
  const name = source.slice(start, i);
  if (name === "of") {
    tokens.push({ kind: "of", text: name, position: start });
    return i;
  }
  if (isFunctionName(name)) {
    tokens.push({ kind: "function", text: name, position: start });
    return i;
  }
  let next = i;
  while (WHITESPACE.has(source[next] ?? "")) next += 1;
  const lower = name.toLowerCase();
  const caseHint = isFunctionName(lower) ? ` Function names are lowercase: write ${lower}(...).` : "";
  if (source[next] === "(") {
    throw new CalculationError(
      "unknown_function",
      start,
      `Unknown function ${quote(name)} at position ${start}.${caseHint} The only functions are ${FUNCTION_LIST}.`,
    );
  }
  throw new CalculationError(
    "unknown_identifier",
    start,
    `Unknown name ${quote(name)} at position ${start}.${caseHint} There are no variables or constants (write ` +
      `numbers out, e.g. 3.14159 for pi); the only names are the functions ${FUNCTION_LIST} and the word "of" ` +
      "after a percentage, as in 15% of 80.",
  );
}
