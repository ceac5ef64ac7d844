/**
 * Checks of a call's arguments that no JSON Schema keyword can make, run before anything recursive
 * touches them (structuredClone, ajv, JSON.stringify in a message): one iterative walk, bounded by
 * info.x-limits of the spec (docs/reliability.md, "Bad input").
 *
 * - nesting deeper than maxParamsDepth or more than maxParamsValues values: refused at the first value
 *   past the bound, so a 50,000-deep body costs a few steps, never a stack overflow;
 * - text (values and keys) with NUL (U+0000, which Postgres cannot store), a lone surrogate (which
 *   would be stored as U+FFFD) or a bidirectional embedding, override or isolate control
 *   (U+202A–U+202E, U+2066–U+2069, which make a payee or name display as other text). The marks
 *   U+200E, U+200F and U+061C stay allowed: right-to-left text needs them and they reorder nothing.
 */
import { AppError } from "../errors.js";
import { limits } from "../../generated/limits.js";

const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
/** With the u flag a surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

export interface ShapeProblem {
  /** Dotted path of the offending value ("" for the root). */
  path: string;
  expected: string;
  message: string;
}

function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "contains NUL (\\u0000)";
  if (LONE_SURROGATE.test(text)) return "contains a lone surrogate (invalid UTF-16)";
  const bidi = BIDI_CONTROL.exec(text);
  if (bidi)
    return `contains the bidirectional control character U+${bidi[0].codePointAt(0)!.toString(16).toUpperCase()}, which makes text display as something else`;
  return undefined;
}

const join = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`);

/** The first problem of a parsed JSON value, or undefined; `checkText` off checks the shape only. */
export function findShapeProblem(root: unknown, opts: { checkText: boolean; maxDepth?: number; maxValues?: number }): ShapeProblem | undefined {
  const maxDepth = opts.maxDepth ?? limits.maxParamsDepth;
  const maxValues = opts.maxValues ?? limits.maxParamsValues;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: "", depth: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (++seen > maxValues) {
      return { path: path || "(params)", expected: `at most ${maxValues} values in all`, message: `too many values: at most ${maxValues} in all` };
    }
    if (typeof value === "string") {
      const why = opts.checkText ? textProblem(value) : undefined;
      if (why) return { path: path || "(params)", expected: "text without NUL, lone surrogates or bidirectional control characters", message: why };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= maxDepth) {
      return { path: path || "(params)", expected: `at most ${maxDepth} levels of nesting`, message: `nested more than ${maxDepth} levels deep` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: join(path, i), depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      const why = opts.checkText ? textProblem(key) : undefined;
      if (why)
        return {
          path: path || "(params)",
          expected: "argument names without NUL, lone surrogates or bidirectional control characters",
          message: `an argument name ${why}`,
        };
      stack.push({ value: (value as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

/** Throws invalid_params naming the field when a tool's arguments break one of the checks above. */
export function checkArguments(tool: string, params: unknown): void {
  const problem = findShapeProblem(params, { checkText: true });
  if (!problem) return;
  throw new AppError("invalid_params", `Invalid arguments for ${tool}: ${problem.path}: ${problem.message}. Fix this argument and call again.`, {
    field: problem.path,
    expected: problem.expected,
  });
}
