/**
 * The only error the calculator throws. `reason` is a stable snake_case code (see docs/calculator.md);
 * `position` is a 0-based offset into the trimmed expression (the one echoed back), counted in UTF-16
 * code units as JavaScript counts string indexes. The message is written for a language model: what was
 * wrong, where, and what is allowed instead.
 */
export type CalculationErrorReason =
  | "not_a_string"
  | "empty"
  | "too_long"
  | "unexpected_character"
  | "invalid_number"
  | "exponent_notation"
  | "thousands_separator"
  | "too_many_digits"
  | "unknown_identifier"
  | "unknown_function"
  | "unexpected_token"
  | "unexpected_end"
  | "unclosed_parenthesis"
  | "too_deep"
  | "wrong_argument_count"
  | "invalid_argument"
  | "division_by_zero"
  | "not_integer_exponent"
  | "exponent_too_large"
  | "result_too_large"
  | "sqrt_of_negative";

export class CalculationError extends Error {
  override readonly name = "CalculationError";
  readonly position: number;
  readonly reason: CalculationErrorReason;

  constructor(reason: CalculationErrorReason, position: number, message: string) {
    super(message);
    this.reason = reason;
    this.position = position;
  }
}

/** Quotes user text for a message, shortened so that a hostile input cannot make a huge message. */
export function quote(text: string): string {
  const short = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return JSON.stringify(short);
}
