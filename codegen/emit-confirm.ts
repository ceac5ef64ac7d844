/**
 * generated/confirm.ts: which writes the person confirms through the client (openrpc.json info["x-confirm"],
 * docs/protocol.md "Confirmation through the client"). A threshold is stated once under `thresholds` and
 * named by each rule that uses it, so a new bulk tool is one line: "<tool>": {"rows": "/…", "over": "bulk_edit"}.
 */
import type { JsonObject, Spec } from "./load.js";

export interface ConfirmRuleSpec {
  /** JSON pointer into the tool's dry-run answer: the number of rows the write would touch. */
  rows?: string;
  /** The threshold: ask only above it. */
  over?: number;
}

export function readConfirmRules(spec: Spec): Map<string, ConfirmRuleSpec> {
  const raw = (spec.raw.info as JsonObject | undefined)?.["x-confirm"] as JsonObject | undefined;
  const rules = new Map<string, ConfirmRuleSpec>();
  if (!raw) return rules;
  const thresholds = (raw.thresholds ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const [name, value] of Object.entries(thresholds))
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) problems.push(`x-confirm.thresholds.${name}: expected an integer ≥ 0`);
  for (const [tool, rule] of Object.entries((raw.tools ?? {}) as Record<string, unknown>)) {
    const method = spec.methods.find((m) => m.name === tool);
    if (!method) problems.push(`x-confirm.tools.${tool}: no such method`);
    else if (method.kind !== "write") problems.push(`x-confirm.tools.${tool}: only write tools go through the write pipeline that confirms`);
    if (rule === true) {
      rules.set(tool, {});
      continue;
    }
    const r = (rule ?? {}) as Record<string, unknown>;
    if (typeof r.rows !== "string" || !/^(\/[^/]+)+$/.test(r.rows))
      problems.push(`x-confirm.tools.${tool}.rows: expected a JSON pointer such as "/counts/new"`);
    const over = typeof r.over === "string" ? thresholds[r.over] : undefined;
    if (typeof over !== "number")
      problems.push(`x-confirm.tools.${tool}.over: expected the name of one of x-confirm.thresholds (${Object.keys(thresholds).join(", ")})`);
    rules.set(tool, { rows: String(r.rows), over: Number(over) });
  }
  if (problems.length) throw new Error(`openrpc.json info.x-confirm:\n  - ${problems.join("\n  - ")}`);
  return rules;
}

export function emitConfirm(spec: Spec, banner: string): string {
  const rules = readConfirmRules(spec);
  const thresholds = (((spec.raw.info as JsonObject | undefined)?.["x-confirm"] as JsonObject | undefined)?.thresholds ?? {}) as Record<string, number>;
  return [
    banner,
    `/** A write the person confirms through the client: always (no rows), or when its dry run touches more than \`over\` rows. */`,
    `export interface ConfirmRule {`,
    `  /** JSON pointer into the tool's dry-run answer: a count, or an array whose length is the count. */`,
    `  readonly rows?: string;`,
    `  readonly over?: number;`,
    `}`,
    ``,
    `/** The named thresholds of openrpc.json info.x-confirm (for docs and tests; rules carry their number). */`,
    `export const confirmThresholds = ${JSON.stringify(thresholds)} as const;`,
    ``,
    `/** openrpc.json info.x-confirm.tools: tool name → its rule. */`,
    `export const confirmRules: ReadonlyMap<string, ConfirmRule> = new Map<string, ConfirmRule>(${JSON.stringify([...rules])});`,
    ``,
  ].join("\n");
}
