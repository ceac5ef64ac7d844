#!/usr/bin/env node
/**
 * npm run lint: every checker, each run whatever the others found, and one summary of those that failed
 * (a chain of `&&` stopped at the first, hiding the others until it was fixed). The checkers: the
 * formatter's check (Prettier), ESLint, the layering rules (dependency-cruiser, docs/architecture.md) and
 * unused exports and files (knip). Exits 1 when any failed. `--write` (npm run format) runs the formatter
 * over the same files instead, so the list of files formatted is kept once.
 */
import { spawnSync } from "node:child_process";

/** What `npm run format` writes; the check reads the same files. */
const FORMATTED = [
  "src/**/*.ts",
  "test/**/*.ts",
  "codegen/**/*.ts",
  "scripts/**/*.ts",
  "apps/**/*.ts",
  "apps/**/*.css",
  "bin/**/*.js",
  "migrations/**/*.js",
  "*.js",
  "*.cjs",
  "scripts/**/*.mjs",
];

const CHECKERS = [
  { name: "prettier", args: ["prettier", "--check", ...FORMATTED], fix: "npm run format" },
  { name: "eslint", args: ["eslint", "."], fix: "fix the lines ESLint names" },
  {
    name: "dependency-cruiser",
    args: ["depcruise", "--config", ".dependency-cruiser.cjs", "src", "codegen", "scripts", "bin"],
    fix: "move the import to the layer docs/architecture.md names",
  },
  { name: "knip", args: ["knip", "--no-progress"], fix: "remove the unused export or file, or use it" },
];

if (process.argv.includes("--write")) {
  process.exit(spawnSync("npx", ["--no-install", "prettier", "--write", ...FORMATTED], { stdio: "inherit" }).status ?? 1);
}

const failed = [];
for (const checker of CHECKERS) {
  console.log(`\n=== ${checker.name} ===`);
  const run = spawnSync("npx", ["--no-install", ...checker.args], { stdio: "inherit" });
  if (run.status !== 0) failed.push(checker);
}
console.log("");
if (failed.length === 0) {
  console.log(`lint: all ${CHECKERS.length} checkers passed`);
} else {
  for (const checker of failed) console.error(`lint: ${checker.name} failed (above): ${checker.fix}`);
  process.exit(1);
}
