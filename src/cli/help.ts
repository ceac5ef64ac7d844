/**
 * The `finance-mcp` command's help, from the command table (src/cli/commands.ts): the overview (every
 * command with its purpose and an example), one command's options, defaults and environment variables,
 * and the nearest name when a command or an option is mistyped.
 */
import { readFileSync } from "node:fs";
import { loadConfig, type Config } from "../config.js";
import { packagePath } from "../package-root.js";
import { COMMANDS, type CommandSpec } from "./commands.js";

export function version(): string {
  return (JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }).version;
}

export function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = [
    `finance-mcp ${version()}: an MCP server for one person's finance data (transactions, budgets, goals, wallets, bills).`,
    "",
    "Usage: finance-mcp [command] [options]     (no command: serve)",
    "",
    "Commands:",
    ...COMMANDS.flatMap((c) => [`  ${c.name.padEnd(width)}  ${c.summary}`, `  ${"".padEnd(width)}    e.g. ${c.example}`]),
    "",
    "finance-mcp help <command> (or <command> --help) shows its options, defaults and environment variables.",
    "finance-mcp --version prints the version. README.md and docs/operations.md say more.",
  ];
  return `${lines.join("\n")}\n`;
}

/** A group's commands ("token": create, list, revoke) with their purpose and an example: `finance-mcp token --help`. */
export function groupHelp(group: string): string {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  const width = Math.max(...members.map((c) => c.name.length));
  const lines = [
    `finance-mcp ${group} <command>:`,
    "",
    ...members.flatMap((c) => [`  ${c.name.padEnd(width)}  ${c.summary}`, `  ${"".padEnd(width)}    e.g. ${c.example}`]),
    "",
    `finance-mcp help ${group} <command> (or ${group} <command> --help) shows its options, defaults and environment variables.`,
  ];
  return `${lines.join("\n")}\n`;
}

/** The defaults of the configuration (an empty environment), for the environment variables' column. */
function configDefaults(): Config {
  return loadConfig({});
}

export function commandHelp(c: CommandSpec): string {
  const usage = [
    `finance-mcp ${c.name}`,
    ...c.options.map((o) => {
      const text = `--${o.name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`;
      return o.required ? text : `[${text}]`;
    }),
    ...(c.args ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)),
  ].join(" ");
  const lines = [`finance-mcp ${c.name}: ${c.summary}`, "", `Usage: ${usage}`, `Example: ${c.example}`];
  const rows = [
    ...c.options.map((o) => ({
      left: `--${o.name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`,
      right: `${o.description}${o.required ? " (required)" : o.default ? ` (default: ${o.default})` : ""}`,
    })),
    ...(c.args ?? []).map((a) => ({ left: a.name, right: `${a.description}${a.required ? " (required)" : a.default ? ` (default: ${a.default})` : ""}` })),
    { left: "-h, --help", right: "this help" },
  ];
  const width = Math.max(...rows.map((r) => r.left.length));
  lines.push("", "Options:", ...rows.map((r) => `  ${r.left.padEnd(width)}  ${r.right}`));
  if (c.env.length > 0) {
    const defaults = configDefaults();
    const envWidth = Math.max(...c.env.map((e) => e.name.length));
    lines.push(
      "",
      "Environment:",
      ...c.env.map((e) => `  ${e.name.padEnd(envWidth)}  ${e.description}${e.default ? ` (default: ${e.default(defaults)})` : ""}`),
    );
  }
  if (c.notes) lines.push("", c.notes);
  return `${lines.join("\n")}\n`;
}

/** Levenshtein distance: how many single-character edits turn a into b. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The candidate nearest to what was typed (a prefix counts as near), or undefined when none is close. */
export function nearest(typed: string, candidates: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  const prefixed = candidates.find((c) => c.startsWith(t) || t.startsWith(c));
  if (prefixed && t.length >= 2) return prefixed;
  let best: { name: string; d: number } | undefined;
  for (const c of candidates) {
    const d = distance(t, c);
    if (!best || d < best.d) best = { name: c, d };
  }
  return best && best.d <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined;
}
