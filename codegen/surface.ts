/**
 * What a model reads of the tool list, in o200k tokens (gpt-tokenizer: the tokenizer of current OpenAI
 * models; Claude's differs by a few per cent, which the budgets leave room for), and the rules codegen
 * enforces on it: the budgets in info.x-surface-budgets, at most 1,024 characters per description, at most
 * 2,048 for the server instructions, and no sentence of eight words or more in three or more descriptions
 * (such a sentence is a shared convention: it belongs in info.x-instructions, said once).
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { toolAnnotations, toolTitle } from "./emit-registry.js";
import type { MethodSpec, Spec } from "./load.js";
import { mcpInputSchema, mcpOutputSchema } from "./schemas.js";

export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_INSTRUCTIONS_CHARS = 2048;
const REPEATED_SENTENCE_WORDS = 8;
const REPEATED_SENTENCE_TOOLS = 3;

export interface SurfaceBudgets {
  /** name, title, description, inputSchema and annotations of every tool: what hosts put in the context. */
  modelVisibleTokens: number;
  /** The whole tools/list entry of every tool, outputSchema included. */
  wholeTokens: number;
}

export interface ToolSurface {
  name: string;
  description: number;
  inputSchema: number;
  outputSchema: number;
  modelVisible: number;
  whole: number;
}

export const tokens = (text: string): number => encode(text).length;

/** The tools/list entry of a method as the server sends it (see src/mcp/tools.ts). */
export function listEntry(spec: Spec, m: MethodSpec) {
  return { name: m.name, title: toolTitle(m), description: m.description, inputSchema: mcpInputSchema(spec, m), annotations: toolAnnotations(m), outputSchema: mcpOutputSchema(spec, m) };
}

export function measureTool(entry: ReturnType<typeof listEntry>): ToolSurface {
  const { outputSchema, ...visible } = entry;
  return {
    name: entry.name,
    description: tokens(entry.description),
    inputSchema: tokens(JSON.stringify(entry.inputSchema)),
    outputSchema: tokens(JSON.stringify(outputSchema)),
    modelVisible: tokens(JSON.stringify(visible)),
    whole: tokens(JSON.stringify(entry)),
  };
}

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z"(])/).map((s) => s.trim()).filter((s) => s.split(/\s+/).length >= REPEATED_SENTENCE_WORDS);
}

/** The rules on prose: problems as lines, empty when every rule holds. */
export function proseProblems(spec: Spec): string[] {
  const problems: string[] = [];
  const instructions = spec.instructions;
  if (instructions.length > MAX_INSTRUCTIONS_CHARS) problems.push(`info.x-instructions: ${instructions.length} characters, at most ${MAX_INSTRUCTIONS_CHARS}`);
  const seen = new Map<string, string[]>();
  for (const m of spec.methods) {
    if (m.description.length > MAX_DESCRIPTION_CHARS) problems.push(`method ${m.name}: description of ${m.description.length} characters, at most ${MAX_DESCRIPTION_CHARS}`);
    for (const s of new Set(sentences(m.description))) seen.set(s, [...(seen.get(s) ?? []), m.name]);
  }
  for (const [s, names] of seen) {
    if (names.length >= REPEATED_SENTENCE_TOOLS) problems.push(`the sentence "${s.slice(0, 80)}…" is in ${names.length} descriptions (${names.join(", ")}): say it once, in info.x-instructions`);
  }
  return problems;
}

/** The rules on tokens: problems as lines, empty when both budgets hold. */
export function budgetProblems(spec: Spec, measured: ToolSurface[] = spec.methods.map((m) => measureTool(listEntry(spec, m)))): string[] {
  const budgets = spec.surfaceBudgets;
  const visible = measured.reduce((n, t) => n + t.modelVisible, 0);
  const whole = measured.reduce((n, t) => n + t.whole, 0);
  const problems: string[] = [];
  if (visible > budgets.modelVisibleTokens) problems.push(`tools/list as a model sees it is ${visible} tokens, over the budget of ${budgets.modelVisibleTokens} (info.x-surface-budgets.modelVisibleTokens)`);
  if (whole > budgets.wholeTokens) problems.push(`tools/list with output schemas is ${whole} tokens, over the budget of ${budgets.wholeTokens} (info.x-surface-budgets.wholeTokens)`);
  return problems;
}
