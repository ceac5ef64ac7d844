#!/usr/bin/env node
/**
 * npm test: every suite against SQLite, then every database-backed suite again against Postgres when it
 * is reachable (PG_TEST_URL, default postgres://postgres@127.0.0.1:5432/postgres). With
 * REQUIRE_POSTGRES=1 an unreachable Postgres is a failure, not a skip. Extra arguments go to mocha.
 */
import { spawnSync } from "node:child_process";
import pg from "pg";

const PG_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const extra = process.argv.slice(2);

function mocha(engine, args) {
  console.log(`\n=== test suite on ${engine} ===`);
  const r = spawnSync("npx", ["mocha", ...args, ...extra], {
    stdio: "inherit",
    env: { ...process.env, FINANCE_TEST_ENGINE: engine },
  });
  return r.status ?? 1;
}

async function postgresReachable() {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (err) {
    console.error(`Postgres at ${PG_URL.replace(/\/\/[^@]*@/, "//***@")} is not reachable: ${err.message}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

// The suites that run the compiled server or the finance-mcp command (test/ops, test/auth/cli) would
// otherwise build dist/ inside a test when a source changed; build it once, before any suite.
if (spawnSync(process.execPath, ["bin/build.js"], { stdio: "inherit" }).status !== 0) process.exit(1);

let failed = mocha("sqlite", []) !== 0;
if (await postgresReachable()) {
  // Pure unit tests do not touch a database: once is enough.
  failed = mocha("postgres", ["--exclude", "test/unit/**"]) !== 0 || failed;
} else if (process.env.REQUIRE_POSTGRES === "1") {
  console.error("REQUIRE_POSTGRES=1 and Postgres is unreachable: failing.");
  failed = true;
} else {
  console.log("Postgres unreachable: its suites were skipped (set REQUIRE_POSTGRES=1 to make this a failure).");
}
process.exit(failed ? 1 : 0);
