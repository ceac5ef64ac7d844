/**
 * generated/limits.ts: the service's bounds from info.x-limits of openrpc.json, the one place they are
 * written (docs/reliability.md, "Bounds"). Codegen refuses a spec whose Amount/SignedAmount/Date
 * patterns disagree with them, so the schema a client reads and the checks the server makes are the same.
 */
import type { JsonObject, Spec } from "./load.js";

export interface Limits {
  /** Every amount is below this many major units of its currency ("1000000000000"). */
  amount_below: string;
  /** A wallet's balance and each of its monthly totals stay below this many major units, in magnitude. */
  running_total_below: string;
  first_date: string;
  last_date: string;
  /** Nesting levels of a call's params (an object or array counts one level). */
  max_params_depth: number;
  /** Values (objects, arrays and scalars) in a call's params. */
  max_params_values: number;
  /** Page size of a list tool (one with a cursor) when limit is not given, and the largest limit. */
  default_page_size: number;
  max_page_size: number;
  /** An imported row and a wallet's transaction of the same signed amount this many days apart (or fewer) are a possible duplicate. */
  import_match_days: number;
  /**
   * Rows one bulk write changes at most: an import, update_transactions, a rule applied to the past and
   * an undo (issue 41). The params that bound a count (expected_count, import_rows) state it in full.
   */
  bulk_write_rows: number;
}

const KEYS: (keyof Limits)[] = [
  "amount_below",
  "running_total_below",
  "first_date",
  "last_date",
  "max_params_depth",
  "max_params_values",
  "default_page_size",
  "max_page_size",
  "import_match_days",
  "bulk_write_rows",
];

export function readLimits(spec: Spec): Limits {
  const raw = ((spec.raw.info as JsonObject | undefined)?.["x-limits"] ?? null) as Record<string, unknown> | null;
  if (!raw) throw new Error("info.x-limits is missing");
  for (const k of KEYS) if (raw[k] === undefined) throw new Error(`info.x-limits.${k} is missing`);
  const limits = raw as unknown as Limits;
  const pattern = (name: string) => new RegExp(String((spec.schemas[name] as JsonObject).pattern));
  const below = BigInt(limits.amount_below);
  const largest = `${below - 1n}.9999`;
  for (const name of ["Amount", "SignedAmount"]) {
    if (!pattern(name).test(largest) || pattern(name).test(String(below))) {
      throw new Error(`components/schemas/${name}: pattern must accept ${largest} and refuse ${below} (info.x-limits.amount_below)`);
    }
  }
  const date = pattern("Date");
  const dayBefore = `${Number(limits.first_date.slice(0, 4)) - 1}-12-31`;
  const dayAfter = `${Number(limits.last_date.slice(0, 4)) + 1}-01-01`;
  if (!date.test(limits.first_date) || !date.test(limits.last_date) || date.test(dayBefore) || date.test(dayAfter)) {
    throw new Error(`components/schemas/Date: pattern must accept ${limits.first_date}..${limits.last_date} and nothing outside (info.x-limits)`);
  }
  // Every list tool states its limit param in full (clients read each tool alone); all must agree.
  for (const m of spec.methods) {
    if (!m.params.some((p) => p.name === "cursor")) continue;
    const limit = m.params.find((p) => p.name === "limit")?.schema;
    if (!limit || limit.maximum !== limits.max_page_size || limit.default !== limits.default_page_size) {
      throw new Error(`${m.name}: a list tool's limit must have maximum ${limits.max_page_size} and default ${limits.default_page_size} (info.x-limits)`);
    }
  }
  // The model reads the window in ImportRow's description; it must be this one.
  const row = String((spec.schemas.ImportRow as JsonObject | undefined)?.description ?? "");
  if (!row.includes(`≤${limits.import_match_days} days`)) {
    throw new Error(
      `components/schemas/ImportRow: description must state the match window "≤${limits.import_match_days} days" (info.x-limits.import_match_days)`,
    );
  }
  // Every count a bulk write states (expected_count, import_rows) is bounded by the one cap.
  for (const m of spec.methods) {
    for (const p of m.params) {
      const bound = p.name === "expected_count" ? p.schema?.maximum : p.schema?.maxItems;
      if (["expected_count", "import_rows", "transaction_ids"].includes(p.name) && bound !== limits.bulk_write_rows)
        throw new Error(`${m.name}: ${p.name} must be bounded by ${limits.bulk_write_rows} (info.x-limits.bulk_write_rows)`);
    }
  }
  return limits;
}

/** Numeric bounds of the properties of component schemas, for domain checks that must not restate them. */
function schemaBounds(spec: Spec): Record<string, Record<string, { minimum?: number; maximum?: number }>> {
  const out: Record<string, Record<string, { minimum?: number; maximum?: number }>> = {};
  for (const [name, schema] of Object.entries(spec.schemas)) {
    for (const [prop, p] of Object.entries(((schema as JsonObject).properties ?? {}) as Record<string, JsonObject>)) {
      const bound: { minimum?: number; maximum?: number } = {};
      if (typeof p.minimum === "number") bound.minimum = p.minimum;
      if (typeof p.maximum === "number") bound.maximum = p.maximum;
      if (Object.keys(bound).length) (out[name] ??= {})[prop] = bound;
    }
  }
  return out;
}

/** maxLength of the string component schemas (Payee, Description, …), for text the domain takes from elsewhere than the arguments. */
function stringMaxLengths(spec: Spec): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, schema] of Object.entries(spec.schemas)) {
    const s = schema as JsonObject;
    if (s.type === "string" && typeof s.maxLength === "number") out[name] = s.maxLength;
  }
  return out;
}

export function emitLimits(spec: Spec, banner: string): string {
  const l = readLimits(spec);
  return [
    banner,
    `/** The service's bounds: info.x-limits of openrpc.json (docs/reliability.md, "Bounds"). */`,
    `export const limits = {`,
    `  /** Every amount is below this many major units of its currency. */`,
    `  amountBelow: ${l.amount_below}n,`,
    `  /** A wallet's balance and each monthly total stay below this many major units, in magnitude. */`,
    `  runningTotalBelow: ${l.running_total_below}n,`,
    `  firstDate: ${JSON.stringify(l.first_date)},`,
    `  lastDate: ${JSON.stringify(l.last_date)},`,
    `  maxParamsDepth: ${l.max_params_depth},`,
    `  maxParamsValues: ${l.max_params_values},`,
    `  defaultPageSize: ${l.default_page_size},`,
    `  maxPageSize: ${l.max_page_size},`,
    `  /** A statement row and a transaction of the same signed amount this many days apart (or fewer) are a possible duplicate. */`,
    `  importMatchDays: ${l.import_match_days},`,
    `  /** Rows one bulk write (import, bulk edit, a rule applied to the past, undo) changes at most. */`,
    `  bulkWriteRows: ${l.bulk_write_rows},`,
    `} as const;`,
    ``,
    `/** minimum/maximum of component schemas' properties: the spec's bounds, for checks the domain repeats. */`,
    `export const schemaBounds = ${JSON.stringify(schemaBounds(spec), null, 2)} as const;`,
    ``,
    `/** maxLength of the string component schemas, in characters (code points, as JSON Schema counts them). */`,
    `export const stringMaxLengths = ${JSON.stringify(stringMaxLengths(spec), null, 2)} as const;`,
    ``,
  ].join("\n");
}
