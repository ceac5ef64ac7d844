/**
 * generated/prompts.ts from openrpc.json's top-level `x-prompts` (the MCP prompts: prompts/list,
 * prompts/get). Prompts are not tools, so they are not methods; the spec still holds them, so that the
 * tools a prompt names are checked against the methods here, and its cost against its budget
 * (codegen/budgets.ts, promptProblems).
 */
import type { JsonObject, Spec } from "./load.js";
import { placeholders, type PromptSpec } from "../src/mcp/prompt-text.js";

const NAME = /^[a-z][a-z0-9_]*$/;

/** The prompts of the spec, checked: names, arguments, placeholders, tools that exist. */
export function readPrompts(spec: Spec): PromptSpec[] {
  const raw = (spec.raw["x-prompts"] ?? []) as unknown as PromptSpec[];
  if (!Array.isArray(raw)) throw new Error("x-prompts must be an array");
  const problems: string[] = [];
  const tools = new Set(spec.methods.map((m) => m.name));
  const seen = new Set<string>();
  for (const p of raw) {
    const where = `x-prompts ${p.name}`;
    if (!NAME.test(p.name ?? "")) problems.push(`${where}: name must be lower_snake_case`);
    if (seen.has(p.name)) problems.push(`${where}: declared twice`);
    seen.add(p.name);
    for (const k of ["title", "description"] as const) if (typeof p[k] !== "string" || p[k] === "") problems.push(`${where}: ${k} is required`);
    if (!Array.isArray(p.text) || p.text.length === 0 || !p.text.every((l) => typeof l === "string")) problems.push(`${where}: text must be a list of lines`);
    if (!Array.isArray(p.tools) || p.tools.length === 0) problems.push(`${where}: tools must name the tools the prompt expects`);
    for (const t of p.tools ?? []) {
      if (!tools.has(t)) problems.push(`${where}: names the tool ${t}, which is not a method`);
      else if (!(p.text ?? []).some((l) => l.includes(t))) problems.push(`${where}: lists the tool ${t} but its text never names it`);
    }
    const args = new Set((p.arguments ?? []).map((a) => a.name));
    for (const a of p.arguments ?? []) {
      if (!NAME.test(a.name)) problems.push(`${where}: argument ${a.name} must be lower_snake_case`);
      if (typeof a.required !== "boolean") problems.push(`${where}: argument ${a.name} needs an explicit required`);
      if (typeof a.pattern !== "string" || !a.pattern.startsWith("^") || !a.pattern.endsWith("$"))
        problems.push(`${where}: argument ${a.name} needs an anchored pattern (no free text reaches a prompt)`);
      else if (!new RegExp(a.pattern).test(a.example)) problems.push(`${where}: argument ${a.name}'s example does not match its pattern`);
    }
    const used = placeholders(p);
    for (const u of used) if (!args.has(u)) problems.push(`${where}: the text uses {{${u}}}, which is not an argument`);
    for (const a of args) if (!used.has(a)) problems.push(`${where}: argument ${a} is never used in the text`);
  }
  if (problems.length) throw new Error(`openrpc.json x-prompts:\n  - ${problems.join("\n  - ")}`);
  return raw;
}

export function emitPrompts(prompts: readonly PromptSpec[], banner: string): string {
  return [
    banner,
    "/** The MCP prompts: openrpc.json's x-prompts, checked by codegen (tools, arguments, token budget). */",
    'import type { PromptSpec } from "../src/mcp/prompt-text.js";',
    "",
    `export const prompts: readonly PromptSpec[] = ${JSON.stringify(prompts as unknown as JsonObject[], null, 2)};`,
    "",
    "export const promptsByName: ReadonlyMap<string, PromptSpec> = new Map(prompts.map((p) => [p.name, p]));",
    "",
  ].join("\n");
}
