/**
 * The token budgets of the tool surface (issue 13): what a model pays for the tool list on every turn.
 * `npm run codegen` (and so codegen:check and CI) fails when one is exceeded. Counted with the o200k
 * tokenizer of gpt-tokenizer over minified JSON, as a host sends it.
 */
import { encode } from "gpt-tokenizer/encoding/o200k_base";

export const BUDGETS = Object.freeze({
  /** name, title, description, inputSchema, annotations of every tool, with every scope. */
  modelVisibleTokens: 10000,
  /** The whole tools/list answer, output schemas included. */
  wholeTokens: 25000,
  descriptionChars: 1024,
  instructionsChars: 2048,
  /** A sentence of this many words or more may appear in fewer than `sharedSentenceTools` descriptions. */
  sharedSentenceWords: 8,
  sharedSentenceTools: 3,
});

export interface SurfaceTool {
  name: string;
  title: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
}

export const tokens = (value: unknown): number => encode(typeof value === "string" ? value : JSON.stringify(value)).length;

export const modelVisible = (t: SurfaceTool) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: t.inputSchema,
  annotations: t.annotations,
});
export const whole = (t: SurfaceTool) => ({ ...modelVisible(t), outputSchema: t.outputSchema });

export interface SurfaceMeasure {
  modelVisibleTokens: number;
  wholeTokens: number;
  perTool: { name: string; description: number; inputSchema: number; outputSchema: number; descriptionChars: number }[];
}

export function measureSurface(tools: readonly SurfaceTool[]): SurfaceMeasure {
  return {
    modelVisibleTokens: tokens({ tools: tools.map(modelVisible) }),
    wholeTokens: tokens({ tools: tools.map(whole) }),
    perTool: tools.map((t) => ({
      name: t.name,
      description: tokens(t.description),
      inputSchema: tokens(t.inputSchema),
      outputSchema: tokens(t.outputSchema),
      descriptionChars: t.description.length,
    })),
  };
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
  if (m.modelVisibleTokens > BUDGETS.modelVisibleTokens)
    problems.push(`model-visible tools/list is ${m.modelVisibleTokens} tokens, above ${BUDGETS.modelVisibleTokens}`);
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
