/**
 * Parts of a test run that npm install does not provide: a browser, a Python interpreter, openssl, the
 * MCP conformance suites and @open-rpc/generator (fetched by scripts/run-tests.mjs on first use), the MCP
 * Inspector in npm's cache, a Redis server (the limits' Redis store). Postgres is the runner's own check
 * (scripts/run-tests.mjs).
 *
 * Without one, the tests that need it are skipped, never failed: `npm test` on a fresh clone passes. Each
 * skip is written, with its reason, to the file the runner names in FINANCE_TEST_SKIP_LOG, and the runner
 * prints one line per reason at the end of the run. A part's REQUIRE_* switch (CI sets them) makes its
 * absence a failure instead (docs/decisions.md, "Missing external parts skip, loudly").
 */
import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import { engine } from "./database.js";

export const EXTERNAL_PARTS = {
  chromium: { require: "REQUIRE_BROWSER", install: "apt-get install chromium (or CHROMIUM_PATH=...)" },
  python3: { require: "REQUIRE_PYTHON", install: "apt-get install python3-minimal" },
  openssl: { require: "REQUIRE_OPENSSL", install: "apt-get install openssl" },
  conformance: { require: "REQUIRE_CONFORMANCE", install: "npm run conformance:install" },
  generator: { require: "REQUIRE_GENERATOR", install: "npm run generator:install" },
  inspector: { require: "REQUIRE_INSPECTOR", install: "npx -y @modelcontextprotocol/inspector@1.0.3 --help" },
  redis: { require: "REQUIRE_REDIS", install: "apt-get install redis-server, then redis-server --daemonize yes (.ci/run starts it)" },
} as const;

export type ExternalPart = keyof typeof EXTERNAL_PARTS;

/** One skip, as the runner reads it back (one JSON object per line). */
export interface SkipRecord {
  engine: string;
  part: ExternalPart;
  reason: string;
  file: string;
}

/** Whether a program answers `<program> <args>` (for example `python3 --version`). */
export function hasProgram(program: string, args: string[] = ["--version"]): boolean {
  try {
    execFileSync(program, args, { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Skips the current test or suite (from a `before` hook: the whole suite) because `part` is missing, and
 * records why; with the part's REQUIRE_* switch set, throws instead so that the run fails.
 */
export function skipWithout(ctx: Mocha.Context, part: ExternalPart, reason: string): never {
  const { require, install } = EXTERNAL_PARTS[part];
  if (process.env[require] === "1") throw new Error(`${require}=1 but ${reason} (${install})`);
  const runnable = ctx.currentTest ?? ctx.test;
  const file = runnable?.file ? relative(process.cwd(), runnable.file) : "(unknown file)";
  const record: SkipRecord = { engine, part, reason: `${reason} (${install}; ${require}=1 makes this a failure)`, file };
  if (process.env.FINANCE_TEST_SKIP_LOG) appendFileSync(process.env.FINANCE_TEST_SKIP_LOG, `${JSON.stringify(record)}\n`);
  console.log(`      (skipped: ${record.reason})`);
  ctx.skip();
  throw new Error("unreachable: ctx.skip() throws");
}
