/**
 * ajv errors → one message a language model can act on: which field, what was expected, what was sent.
 * The first error decides `data.field`/`data.expected`; the rest are listed in `data.errors`. What is
 * expected reads as a phrase after the field ("limit: at most 50 (got 51)"), never ajv's own wording
 * ("must be <= 50").
 */
import type { ErrorObject } from "ajv";
import { AppError } from "../errors.js";

function fieldOf(e: ErrorObject): string {
  const base = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const extra =
    e.keyword === "required"
      ? (e.params as { missingProperty: string }).missingProperty
      : e.keyword === "additionalProperties"
        ? (e.params as { additionalProperty: string }).additionalProperty
        : "";
  return [base, extra].filter(Boolean).join(".") || "(params)";
}

const FORMAT_HINTS: Record<string, string> = {
  date: "a calendar date YYYY-MM-DD",
  "date-time": "an ISO 8601 date-time such as 2026-01-31T09:00:00Z",
  uuid: "a UUID such as 3f1c2b9e-8d4a-4c1e-9b7a-2e5d6f7a8b9c",
};

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function expectedOf(e: ErrorObject): string {
  const parent = (e.parentSchema ?? {}) as { description?: string; enum?: unknown[] };
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return "this argument is required";
    case "additionalProperties": {
      const allowed = Object.keys(((e.parentSchema ?? {}) as { properties?: object }).properties ?? {});
      return `no such argument; allowed arguments are: ${allowed.join(", ") || "none"}`;
    }
    case "enum":
      return `one of ${((p.allowedValues as unknown[]) ?? parent.enum ?? []).map((v) => JSON.stringify(v)).join(", ")}`;
    case "type":
      return `a value of type ${String(p.type)}`;
    case "format":
      return FORMAT_HINTS[String(p.format)] ?? `a string in ${String(p.format)} format`;
    case "maximum":
      return `at most ${String(p.limit)}`;
    case "minimum":
      return `at least ${String(p.limit)}`;
    case "exclusiveMaximum":
      return `less than ${String(p.limit)}`;
    case "exclusiveMinimum":
      return `more than ${String(p.limit)}`;
    case "maxLength":
      return `at most ${plural(Number(p.limit), "character")}`;
    case "minLength":
      return `at least ${plural(Number(p.limit), "character")}`;
    case "maxItems":
      return `at most ${plural(Number(p.limit), "item")}`;
    case "minItems":
      return `at least ${plural(Number(p.limit), "item")}`;
    case "maxProperties":
      return `at most ${plural(Number(p.limit), "property", "properties")}`;
    case "minProperties":
      return `at least ${plural(Number(p.limit), "property", "properties")}`;
    case "uniqueItems":
      return "no item twice";
    case "multipleOf":
      return `a multiple of ${String(p.multipleOf)}`;
    case "const":
      return `exactly ${JSON.stringify(p.allowedValue)}`;
    case "pattern":
      return parent.description ? `${parent.description} (pattern ${String(p.pattern)})` : `a string matching the pattern ${String(p.pattern)}`;
    default:
      // ajv's message for a keyword not above ("must NOT be valid"), without its "must".
      return (e.message ?? e.keyword).replace(/^must /, "");
  }
}

export function validationError(tool: string, errors: readonly ErrorObject[]): AppError {
  // anyOf/oneOf produce a summary error after the branch errors; the branch errors say more.
  const useful = errors.filter((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && e.keyword !== "if");
  const first = useful[0] ?? errors[0];
  if (!first) return new AppError("invalid_params", `Invalid arguments for ${tool}.`);
  const field = fieldOf(first);
  const expected = expectedOf(first);
  const got = first.keyword === "required" || first.keyword === "additionalProperties" ? "" : ` (got ${JSON.stringify(first.data)?.slice(0, 80)})`;
  return new AppError("invalid_params", `Invalid arguments for ${tool}: ${field}: ${expected}${got}. Fix this argument and call again.`, {
    field,
    expected,
    errors: useful.slice(0, 5).map((e) => ({ field: fieldOf(e), expected: expectedOf(e) })),
  });
}
