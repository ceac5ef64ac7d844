/**
 * npm run bench -- account-delete [--scale N] [--postgres]: how long counting (the deletion
 * page) and deleting an account (src/account/delete.ts) take for the benchmark's heavy user with N
 * transactions (default 100,000), on SQLite or Postgres, and that the other users' rows are all left.
 * The data is the benchmark's (scripts/bench/data.ts); numbers go to docs/performance.md by hand.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { countAccountRows, deleteAccount } from "../../../src/account/delete.js";
import { createDb } from "../../../src/db/knex.js";
import { buildData } from "../data.js";
import { seedPostgres, seedSqlite } from "../seed.js";

const { values } = parseArgs({ options: { scale: { type: "string" }, postgres: { type: "boolean" } } });
const scale = Number(values.scale ?? 100_000);
const PG_ADMIN_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const today = new Date().toISOString().slice(0, 10);
const { fixture, tables } = buildData({
  scale,
  today,
  recentPerDay: 20,
  historyYears: 5,
  tokens: 4,
  otherUsers: 20,
  otherTransactions: 20,
  pepper: "bench",
  seed: 8,
});

const dir = mkdtempSync(join(tmpdir(), "fmcp-delete-bench-"));
const name = `fmcp_delete_bench_${process.pid}`;
let url: string;
if (values.postgres) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  url = u.toString();
  await seedPostgres(url, tables);
} else {
  url = `sqlite:${join(dir, "bench.sqlite")}`;
  await seedSqlite(join(dir, "bench.sqlite"), tables);
}
const db = createDb(url);
try {
  const others = async () => Number((await db("transactions").whereNot({ user_id: fixture.mainUserId }).count({ n: "*" }))[0]!.n);
  const othersBefore = await others();
  let t = performance.now();
  const counts = await countAccountRows(db, fixture.mainUserId);
  const countMs = performance.now() - t;
  t = performance.now();
  const deleted = await deleteAccount(db, fixture.mainUserId);
  const deleteMs = performance.now() - t;
  const rows = deleted.reduce((n, d) => n + d.rows, 0);
  if (rows !== counts.reduce((n, c) => n + c.rows, 0)) throw new Error("deleted another number of rows than counted");
  if ((await others()) !== othersBefore) throw new Error("other users' transactions changed");
  console.log(
    JSON.stringify({
      engine: values.postgres ? "postgres" : "sqlite",
      transactions: fixture.mainTransactions,
      rows,
      count_ms: Math.round(countMs),
      delete_ms: Math.round(deleteMs),
      per_table: Object.fromEntries(deleted.filter((d) => d.rows > 0).map((d) => [d.table, d.rows])),
    }),
  );
} finally {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
  if (values.postgres) {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
