/**
 * The calculator's whole vocabulary of names. A Map (not an object literal), so that names such as
 * "constructor" or "__proto__" can never resolve to something inherited.
 */
export type FunctionName = "round" | "floor" | "ceil" | "abs" | "min" | "max" | "sqrt";

export interface FunctionArity {
  readonly min: number;
  /** Infinity for min and max. */
  readonly max: number;
  /** How the arguments are described in error messages. */
  readonly usage: string;
}

export const FUNCTIONS: ReadonlyMap<string, FunctionArity> = new Map<FunctionName, FunctionArity>([
  ["round", { min: 1, max: 2, usage: "round(x) or round(x, digits) with digits an integer from 0 to 20" }],
  ["floor", { min: 1, max: 1, usage: "floor(x)" }],
  ["ceil", { min: 1, max: 1, usage: "ceil(x)" }],
  ["abs", { min: 1, max: 1, usage: "abs(x)" }],
  ["min", { min: 1, max: Infinity, usage: "min(x, y, ...) with at least one argument" }],
  ["max", { min: 1, max: Infinity, usage: "max(x, y, ...) with at least one argument" }],
  ["sqrt", { min: 1, max: 1, usage: "sqrt(x) with x >= 0" }],
]);

export const FUNCTION_LIST = [...FUNCTIONS.keys()].join(", ");

export function isFunctionName(name: string): name is FunctionName {
  return FUNCTIONS.has(name);
}
