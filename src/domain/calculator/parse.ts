import { CalculationError, quote } from "./errors.js";
import { FUNCTIONS, type FunctionName } from "./functions.js";
import { LIMITS } from "./limits.js";
import type { Operator, Token } from "./tokenize.js";

/**
 * The syntax tree. `position` is where an error about the node is reported: the operator for operations,
 * the function name for calls, the first character for numbers.
 */
export type Node =
  | { readonly kind: "number"; readonly text: string; readonly position: number }
  | { readonly kind: "negate" | "plus"; readonly operand: Node; readonly position: number }
  | { readonly kind: "binary"; readonly operator: Operator; readonly left: Node; readonly right: Node; readonly position: number }
  | { readonly kind: "percent"; readonly operand: Node; readonly position: number }
  | { readonly kind: "of"; readonly left: Node; readonly right: Node; readonly position: number }
  | {
      readonly kind: "call";
      readonly name: FunctionName;
      readonly args: readonly Node[];
      /** Position of the first character of each argument. */
      readonly argPositions: readonly number[];
      readonly position: number;
    };

/*
 * Grammar (recursive descent, lowest precedence first):
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "%") unary)*            "%" here is modulo
 *   unary      := ("+" | "-") unary | of
 *   of         := power ("of" unary)?                         only when power is a percentage: 15% of 80
 *   power      := postfix ("^" unary)?                        right associative: 2^3^2 = 2^9; -2^2 = -(2^2)
 *   postfix    := primary ("%")?                              "%" here is percent (divide by 100)
 *   primary    := NUMBER | "(" expression ")" | FUNCTION "(" [expression ("," expression)*] ")"
 *
 * Percent or modulo? A "%" that directly follows an operand is a PERCENT sign when the next token is the end of
 * the expression, ")", ",", an operator (+ - * / % ^) or the word "of"; otherwise (a number, "(" or a function
 * name follows) it is the MODULO operator. So `80 * 15%` = 12, `15% of 80` = 12, `10 % 3` = 1, and `7 % -2`
 * reads as `7% - 2` = -1.93 (write `7 % (-2)` for the modulo). A percent sign may not follow another one.
 *
 * Depth: every "(" (including a call's), every unary sign and every right operand of "^" or "of" enters one level;
 * more than LIMITS.maxDepth levels are refused (too_deep), which also bounds the recursion of this parser.
 */
export function parse(tokens: readonly Token[]): Node {
  return new Parser(tokens).parseAll();
}

const PERCENT_FOLLOWERS = new Set(["end", "rparen", "comma", "of", "operator"]);

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseAll(): Node {
    const node = this.parseExpression();
    const token = this.peek();
    if (token.kind !== "end") {
      throw this.unexpectedAfterOperand(token, "an operator or the end of the expression");
    }
    return node;
  }

  private peek(offset = 0): Token {
    // The last token is always "end", so reading past it keeps returning it.
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== "end") this.index += 1;
    return token;
  }

  private isOperator(token: Token, ...operators: Operator[]): boolean {
    return token.kind === "operator" && (operators as string[]).includes(token.text);
  }

  private enter(token: Token): void {
    this.depth += 1;
    if (this.depth > LIMITS.maxDepth) {
      throw new CalculationError(
        "too_deep",
        token.position,
        `The expression is nested too deeply at position ${token.position} (${quote(token.text)}): at most ` +
          `${LIMITS.maxDepth} levels of parentheses, function calls, unary signs and powers are allowed. ` +
          "Simplify the expression or split it into several calculations.",
      );
    }
  }

  private leave(): void {
    this.depth -= 1;
  }

  private parseExpression(): Node {
    let left = this.parseTerm();
    while (this.isOperator(this.peek(), "+", "-")) {
      const operator = this.next();
      const right = this.parseTerm();
      left = { kind: "binary", operator: operator.text as Operator, left, right, position: operator.position };
    }
    return left;
  }

  private parseTerm(): Node {
    let left = this.parseUnary();
    while (this.isOperator(this.peek(), "*", "/", "%")) {
      const operator = this.next();
      const right = this.parseUnary();
      left = { kind: "binary", operator: operator.text as Operator, left, right, position: operator.position };
    }
    return left;
  }

  private parseUnary(): Node {
    const token = this.peek();
    if (this.isOperator(token, "+", "-")) {
      this.next();
      this.enter(token);
      const operand = this.parseUnary();
      this.leave();
      return { kind: token.text === "-" ? "negate" : "plus", operand, position: token.position };
    }
    return this.parseOf();
  }

  private parseOf(): Node {
    const left = this.parsePower();
    const token = this.peek();
    if (token.kind !== "of") return left;
    if (left.kind !== "percent") {
      throw this.misplacedOf(token);
    }
    this.next();
    this.enter(token);
    const right = this.parseUnary();
    this.leave();
    return { kind: "of", left, right, position: token.position };
  }

  private parsePower(): Node {
    const base = this.parsePostfix();
    const token = this.peek();
    if (!this.isOperator(token, "^")) return base;
    this.next();
    this.enter(token);
    const exponent = this.parseUnary();
    this.leave();
    return { kind: "binary", operator: "^", left: base, right: exponent, position: token.position };
  }

  private parsePostfix(): Node {
    const operand = this.parsePrimary();
    const token = this.peek();
    if (!this.isOperator(token, "%") || !PERCENT_FOLLOWERS.has(this.peek(1).kind)) return operand;
    this.next();
    const after = this.peek();
    if (this.isOperator(after, "%")) {
      throw new CalculationError(
        "unexpected_token",
        after.position,
        `Unexpected "%" at position ${after.position}: a percent sign cannot follow another percent sign. ` +
          "Write 15% for 0.15, 15% of 80 or 80 * 15% for a share, and a % b (followed by a number) for the modulo.",
      );
    }
    return { kind: "percent", operand, position: token.position };
  }

  private parsePrimary(): Node {
    const token = this.next();
    switch (token.kind) {
      case "number":
        return { kind: "number", text: token.text, position: token.position };
      case "lparen": {
        this.enter(token);
        if (this.peek().kind === "rparen") {
          throw new CalculationError(
            "unexpected_token",
            token.position,
            `Empty parentheses at position ${token.position}: put an expression inside them, e.g. (1 + 2).`,
          );
        }
        const inner = this.parseExpression();
        this.expectClose(token, 'an operator or ")"');
        this.leave();
        return inner;
      }
      case "function":
        return this.parseCall(token.text, token.position);
      case "end":
        throw new CalculationError(
          "unexpected_end",
          token.position,
          `The expression ends at position ${token.position} where a number, "(" or a function was expected; ` +
            "complete the expression (e.g. 1 + 2, not 1 +).",
        );
      case "of":
        throw this.misplacedOf(token);
      default:
        throw new CalculationError(
          "unexpected_token",
          token.position,
          `Unexpected ${quote(token.text)} at position ${token.position}: expected a number, "(" or a function ` +
            `such as sqrt(...). ${
              token.kind === "operator" && token.text !== "+" && token.text !== "-" ? `The operator ${token.text} needs a value on each side.` : ""
            }`.trimEnd(),
        );
    }
  }

  private parseCall(name: FunctionName, position: number): Node {
    const open = this.peek();
    const arity = FUNCTIONS.get(name)!;
    if (open.kind !== "lparen") {
      throw new CalculationError(
        "unexpected_token",
        open.position,
        `Expected "(" after the function name ${quote(name)} at position ${position}, found ${quote(open.text)} ` +
          `at position ${open.position}. Call it as ${arity.usage}.`,
      );
    }
    this.next();
    this.enter(open);
    const args: Node[] = [];
    const argPositions: number[] = [];
    if (this.peek().kind !== "rparen") {
      for (;;) {
        argPositions.push(this.peek().position);
        args.push(this.parseExpression());
        if (this.peek().kind !== "comma") break;
        this.next();
      }
    }
    this.expectClose(open, 'an operator, "," or ")"');
    this.leave();
    if (args.length < arity.min || args.length > arity.max) {
      throw new CalculationError(
        "wrong_argument_count",
        position,
        `The function ${name} at position ${position} was given ${args.length} argument${args.length === 1 ? "" : "s"}; ` + `call it as ${arity.usage}.`,
      );
    }
    return { kind: "call", name, args, argPositions, position };
  }

  /** After the contents of "(" ... or a call's arguments: requires ")". */
  private expectClose(open: Token, expected: string): void {
    const token = this.peek();
    if (token.kind === "rparen") {
      this.next();
      return;
    }
    if (token.kind === "end") {
      throw new CalculationError(
        "unclosed_parenthesis",
        open.position,
        `The "(" at position ${open.position} is never closed: add ")" (the expression ends at position ${token.position}).`,
      );
    }
    throw this.unexpectedAfterOperand(token, expected);
  }

  /** A token that cannot follow a complete operand. */
  private unexpectedAfterOperand(token: Token, expected: string): CalculationError {
    let hint: string;
    switch (token.kind) {
      case "rparen":
        hint = 'This ")" has no matching "(".';
        break;
      case "comma":
        hint =
          this.depth === 0
            ? "A comma is only allowed between the arguments of a function, e.g. max(1, 2); numbers have no thousands separators."
            : "A comma is only allowed between the arguments of a function, e.g. max(1, 2).";
        break;
      case "of":
        return this.misplacedOf(token);
      default:
        hint =
          "Two values must be joined by an operator: there is no implicit multiplication (write 2 * (3 + 4), not 2(3 + 4)), " +
          "and numbers contain no spaces or separators.";
    }
    return new CalculationError(
      "unexpected_token",
      token.position,
      `Unexpected ${quote(token.text)} at position ${token.position}: expected ${expected}. ${hint}`,
    );
  }

  private misplacedOf(token: Token): CalculationError {
    return new CalculationError(
      "unexpected_token",
      token.position,
      `Unexpected "of" at position ${token.position}: "of" may only follow a percentage, as in 15% of 80 (= 12).`,
    );
  }
}
