/**
 * The token budgets of the tool surface: what a model pays for the tool list on every turn. The budget
 * grows with the tools (a per-tool average, a per-tool ceiling, and totals sized for 50 tools), so adding
 * a tool of ordinary size never breaks it (docs/decisions.md, "Room to grow").
 * `npm run codegen` (and so codegen:check and CI) fails when one is exceeded, printing the headroom and
 * where the tokens go. Counted with the o200k tokenizer of gpt-tokenizer over minified JSON, as a host sends it.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { promptResult, type PromptSpec } from "../src/mcp/prompt-text.js";

export const BUDGETS = Object.freeze({
  /** Model-visible tokens (name, title, description, inputSchema, annotations, _meta) per tool, on average. */
  averageToolTokens: 200,
  /** Model-visible tokens of any one tool. */
  maxToolTokens: 400,
  /** The surface is sized for this many tools: the totals below are theirs. */
  plannedTools: 50,
  /** The model-visible tools/list, every tool with every scope; at most averageToolTokens × plannedTools. */
  modelVisibleTokens: 10_000,
  /**
   * The whole tools/list answer, output schemas included: 600 a tool for 50 tools. Output schemas are
   * payload for hosts and clients that validate results; the model-visible budgets above are the ones a
   * model pays on every turn (docs/decisions.md#surface-after-wave-four).
   */
  wholeTokens: 30_000,
  descriptionChars: 1024,
  instructionsChars: 2048,
  /** A sentence of this many words or more may appear in fewer than `sharedSentenceTools` descriptions. */
  sharedSentenceWords: 8,
  sharedSentenceTools: 3,
  /** One prompt as prompts/get answers it (description and message), its arguments at their examples. */
  maxPromptTokens: 300,
});

export interface SurfaceTool {
  name: string;
  title: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
  /** The MCP App link (_meta.ui.resourceUri): sent in tools/list, so counted as if a model read it. */
  _meta?: unknown;
}

export const tokens = (value: unknown): number => encode(typeof value === "string" ? value : JSON.stringify(value)).length;

export const modelVisible = (t: SurfaceTool) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: t.inputSchema,
  annotations: t.annotations,
  ...(t._meta === undefined ? {} : { _meta: t._meta }),
});
export const whole = (t: SurfaceTool) => ({ ...modelVisible(t), outputSchema: t.outputSchema });

/** One tool's model-visible tokens and the parts they come from (the rest is the JSON keys and the name). */
export interface ToolMeasure {
  name: string;
  modelVisible: number;
  description: number;
  inputSchema: number;
  title: number;
  annotations: number;
  outputSchema: number;
  descriptionChars: number;
}

export interface SurfaceMeasure {
  tools: number;
  modelVisibleTokens: number;
  wholeTokens: number;
  /** What the model-visible total may be for this many tools: the average budget, capped by the total. */
  allowedTokens: number;
  /** allowedTokens minus what the tools cost now: what the next tools may cost above the average. */
  headroom: number;
  perTool: ToolMeasure[];
}

/** The model-visible budget for `n` tools: the average per tool, never above the total. */
export const allowedFor = (n: number): number => Math.min(BUDGETS.averageToolTokens * n, BUDGETS.modelVisibleTokens);

export function measureSurface(tools: readonly SurfaceTool[]): SurfaceMeasure {
  const modelVisibleTokens = tokens({ tools: tools.map(modelVisible) });
  const allowedTokens = allowedFor(tools.length);
  return {
    tools: tools.length,
    modelVisibleTokens,
    wholeTokens: tokens({ tools: tools.map(whole) }),
    allowedTokens,
    headroom: allowedTokens - modelVisibleTokens,
    perTool: tools.map((t) => ({
      name: t.name,
      modelVisible: tokens(modelVisible(t)),
      description: tokens(t.description),
      inputSchema: tokens(t.inputSchema),
      title: tokens(t.title),
      annotations: tokens(t.annotations),
      outputSchema: tokens(t.outputSchema),
      descriptionChars: t.description.length,
    })),
  };
}

/** The `n` most expensive tools, each with what in it costs most: the lines codegen prints when it refuses. */
export function costliest(m: SurfaceMeasure, n = 5): string[] {
  return [...m.perTool]
    .sort((a, b) => b.modelVisible - a.modelVisible)
    .slice(0, n)
    .map((t) => {
      const parts = (["inputSchema", "description", "annotations", "title"] as const).map((k) => [k, t[k]] as const).sort((a, b) => b[1] - a[1]);
      return `${t.name}: ${t.modelVisible} tokens (${parts.map(([k, v]) => `${k} ${v}`).join(", ")})`;
    });
}

/** The headroom and the costliest tools, as codegen and `npm run surface` print them. */
export function surfaceReport(m: SurfaceMeasure): string {
  return [
    `${m.tools} tools cost ${m.modelVisibleTokens} model-visible tokens (average ${Math.round(m.modelVisibleTokens / Math.max(m.tools, 1))}); ` +
      `${m.tools} tools may cost ${m.allowedTokens} (${BUDGETS.averageToolTokens} each on average, at most ${BUDGETS.modelVisibleTokens}): headroom ${m.headroom}.`,
    `The five most expensive tools (any one may cost at most ${BUDGETS.maxToolTokens}):`,
    ...costliest(m).map((line) => `  ${line}`),
  ].join("\n");
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.;:!?])\s+/)
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9_ ]+/g, " ")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((s) => s.split(" ").length >= BUDGETS.sharedSentenceWords);
}

/** Every broken budget, as a sentence naming the tool and the figure; empty when all hold. */
export function budgetProblems(tools: readonly SurfaceTool[], instructions: string): string[] {
  const problems: string[] = [];
  const m = measureSurface(tools);
  if (tools.length > BUDGETS.plannedTools)
    problems.push(`${tools.length} tools, above the ${BUDGETS.plannedTools} the budgets are sized for: revisit codegen/budgets.ts before adding more`);
  if (m.modelVisibleTokens > m.allowedTokens)
    problems.push(
      `model-visible tools/list is ${m.modelVisibleTokens} tokens, above ${m.allowedTokens} (${BUDGETS.averageToolTokens} per tool on average for ${tools.length} tools, at most ${BUDGETS.modelVisibleTokens})`,
    );
  for (const t of m.perTool)
    if (t.modelVisible > BUDGETS.maxToolTokens) problems.push(`${t.name}: ${t.modelVisible} model-visible tokens, above ${BUDGETS.maxToolTokens} for one tool`);
  if (m.wholeTokens > BUDGETS.wholeTokens) problems.push(`whole tools/list is ${m.wholeTokens} tokens, above ${BUDGETS.wholeTokens}`);
  if (instructions.length > BUDGETS.instructionsChars) problems.push(`x-instructions is ${instructions.length} characters, above ${BUDGETS.instructionsChars}`);
  for (const t of tools) {
    if (t.description.length > BUDGETS.descriptionChars)
      problems.push(`${t.name}: description is ${t.description.length} characters, above ${BUDGETS.descriptionChars}`);
  }
  const seen = new Map<string, Set<string>>();
  for (const t of tools) for (const s of sentences(t.description)) (seen.get(s) ?? seen.set(s, new Set()).get(s)!).add(t.name);
  for (const [s, names] of seen) {
    if (names.size >= BUDGETS.sharedSentenceTools)
      problems.push(`the sentence "${s}" is in ${names.size} descriptions (${[...names].join(", ")}): say it once in x-instructions`);
  }
  return problems;
}

/** What one prompt costs when fetched: its prompts/get result with every argument at its example. */
export function promptTokens(prompt: PromptSpec): number {
  return tokens(promptResult(prompt, Object.fromEntries(prompt.arguments.map((a) => [a.name, a.example]))));
}

/** Every prompt over its budget, as a sentence naming it and the figure; empty when all hold. */
export function promptProblems(prompts: readonly PromptSpec[]): string[] {
  return prompts
    .map((p) => [p.name, promptTokens(p)] as const)
    .filter(([, n]) => n > BUDGETS.maxPromptTokens)
    .map(([name, n]) => `prompt ${name}: ${n} tokens when fetched, above ${BUDGETS.maxPromptTokens}`);
}
