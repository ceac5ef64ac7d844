/**
 * A fresh database per test suite: a temporary SQLite file, or a new Postgres database created on the
 * server named by PG_TEST_URL and dropped afterwards. FINANCE_TEST_ENGINE picks the engine
 * (scripts/run-tests.mjs runs the whole suite once per engine).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export type Engine = "sqlite" | "postgres";

export const engine: Engine = process.env.FINANCE_TEST_ENGINE === "postgres" ? "postgres" : "sqlite";
export const PG_ADMIN_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (engine === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "fmcp-test-"));
    return { url: `sqlite:${join(dir, "test.sqlite")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `fmcp_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: PG_ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
