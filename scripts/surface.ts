/**
 * npm run surface: what a model reads of the tool list, per tool, in o200k tokens (the same count the
 * codegen budgets use, codegen/surface.ts), printed and written to docs/tool-surface.md.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadSpec } from "../codegen/load.js";
import { listEntry, measureTool, tokens } from "../codegen/surface.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const spec = await loadSpec(`${root}openrpc.json`);
const rows = spec.methods.map((m) => ({ ...measureTool(listEntry(spec, m)), chars: m.description.length }));
const sum = (k: "description" | "inputSchema" | "outputSchema" | "modelVisible" | "whole") => rows.reduce((n, r) => n + r[k], 0);
const b = spec.surfaceBudgets;

const lines = [
  "# The tool surface",
  "",
  "What a model reads of `tools/list`, in o200k tokens (`gpt-tokenizer`), written by `npm run surface` from",
  "`openrpc.json`. The budgets are `info.x-surface-budgets` of the spec, enforced by `npm run codegen` (and so",
  "by `codegen:check` in CI) together with at most 1,024 characters per description, 2,048 for the server",
  "instructions, and no sentence of eight words or more in three or more descriptions (`codegen/surface.ts`).",
  "",
  "Model-visible: name, title, description, inputSchema and annotations, what hosts put in the model's",
  "context on every turn. Whole: the same with outputSchema.",
  "",
  "| | tokens | budget |",
  "|---|---:|---:|",
  `| model-visible, all ${rows.length} tools | ${sum("modelVisible")} | ${b.modelVisibleTokens} |`,
  `| whole tools/list | ${sum("whole")} | ${b.wholeTokens} |`,
  `| server instructions (info.x-instructions, ${spec.instructions.length} characters) | ${tokens(spec.instructions)} | |`,
  "",
  "| tool | description chars | description | inputSchema | outputSchema | model-visible |",
  "|---|---:|---:|---:|---:|---:|",
  ...rows.map((r) => `| ${r.name} | ${r.chars} | ${r.description} | ${r.inputSchema} | ${r.outputSchema} | ${r.modelVisible} |`),
  `| **all** | | **${sum("description")}** | **${sum("inputSchema")}** | **${sum("outputSchema")}** | **${sum("modelVisible")}** |`,
  "",
  "## Against the targets of issue 13",
  "",
  "The targets are 8,000 tokens model-visible and 20,000 whole. Before the conventions moved into the",
  "server instructions and tools/list dropped component and output-schema prose (2026-11-24), the same",
  "count gave 29,991 and 75,859 (descriptions 13,232, input schemas 15,597, output schemas 45,786; 27",
  "descriptions over 1,024 characters). The budgets in the spec are a ratchet at today's figures, to be",
  "lowered as the rest is done: the input schemas' own argument descriptions, and output schemas that inline",
  "Money and whole entities per tool (delete answers repeat the entity they deleted).",
  "",
];
const text = lines.join("\n");
writeFileSync(`${root}docs/tool-surface.md`, text);
console.log(text);
