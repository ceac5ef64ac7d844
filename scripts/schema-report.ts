/**
 * npm run schema [-- --check] — docs/schema.md, generated from the migrations on both engines: a fresh
 * SQLite file and a fresh Postgres database are migrated to the latest version, and their tables,
 * columns, indexes, constraints and triggers are read back from each engine's catalogue. With --check it
 * writes nothing and fails (exit 1) when docs/schema.md differs, so a migration and the report change in
 * one commit (CI runs it). Postgres: PG_TEST_URL, default postgres://postgres@127.0.0.1:5432/postgres.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createDb } from "../src/db/knex.js";
import { migrateLatest } from "../src/db/migrate.js";
import { rawRows } from "../src/db/dialect.js";
import { packagePath } from "../src/package-root.js";

const REPORT = packagePath("docs/schema.md");
const PG_ADMIN_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const SKIP = /^(knex_migrations|knex_migrations_lock|sqlite_sequence|sqlite_stat\d)$/;

/** One statement per line, single spaces: the catalogue keeps the migration's own layout. */
const oneLine = (sql: string) => sql.replace(/\s+/g, " ").trim();

async function sqliteSection(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "fmcp-schema-"));
  const db = createDb(`sqlite:${join(dir, "schema.sqlite")}`);
  try {
    await migrateLatest(db);
    const rows = rawRows(await db.raw("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY tbl_name, type DESC, name"));
    // The catalogue's own statements, one per line (SQLite keeps CHECK and FOREIGN KEY clauses in them).
    // One block for the whole engine; per table its CREATE TABLE, then its indexes on one line and its
    // triggers on one line: compact enough to read in one sitting.
    const out: string[] = ["", "```sql"];
    const tables = [...new Set(rows.map((r) => String(r.tbl_name)))].filter((t) => !SKIP.test(t));
    for (const t of tables) {
      for (const type of ["table", "index", "trigger"]) {
        const statements = rows.filter((r) => r.tbl_name === t && r.type === type).map((r) => `${oneLine(String(r.sql))};`);
        if (statements.length > 0) out.push(statements.join(" "));
      }
    }
    out.push("```");
    return out.join("\n");
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresSection(): Promise<string> {
  const name = `fmcp_schema_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = createDb(url.toString());
  try {
    await migrateLatest(db);
    const q = async (sql: string) => rawRows(await db.raw(sql));
    const columns =
      await q(`SELECT table_name, column_name, data_type, character_maximum_length AS length, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`);
    const constraints = await q(`SELECT c.conrelid::regclass::text AS table_name, c.conname, pg_get_constraintdef(c.oid) AS def
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public' ORDER BY 1, 2`);
    const indexes = await q(`SELECT tablename AS table_name, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`);
    const triggers = await q(`SELECT c.relname AS table_name, t.tgname, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND NOT t.tgisinternal ORDER BY 1, 2`);
    const tables = [...new Set(columns.map((c) => String(c.table_name)))].filter((t) => !SKIP.test(t)).sort();
    const out: string[] = [];
    for (const t of tables) {
      // A table's columns on one line: `name type`, then "null" when nullable and "= default" when set.
      const cols = columns
        .filter((c) => c.table_name === t)
        .map(
          (c) =>
            `\`${String(c.column_name)}\` ${String(c.data_type)}${c.length == null ? "" : `(${String(c.length)})`}${c.is_nullable === "YES" ? " null" : ""}${c.column_default == null ? "" : ` = \`${String(c.column_default)}\``}`,
        );
      out.push(`### ${t}`, `- columns: ${cols.join(", ")}`);
      // Constraints, indexes and triggers: one line of each kind per table, each entry its name and definition.
      const line = (kind: string, items: string[]) => (items.length > 0 ? [`- ${kind}: ${items.join("; ")}`] : []);
      out.push(
        ...line(
          "constraints",
          constraints.filter((c) => c.table_name === t).map((c) => `\`${String(c.conname)}\` \`${oneLine(String(c.def))}\``),
        ),
        ...line(
          "indexes",
          indexes.filter((i) => i.table_name === t).map((i) => `\`${oneLine(String(i.indexdef)).replace(/ ON public\.\S+ USING btree /, " ")}\``),
        ),
        ...line(
          "triggers",
          triggers.filter((g) => g.table_name === t).map((g) => `\`${oneLine(String(g.def))}\``),
        ),
      );
    }
    return out.join("\n");
  } finally {
    await db.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  const report = [
    "# Database schema",
    "",
    "Generated by `npm run schema` from `migrations/` on both engines (do not edit; `npm run schema:check` in CI",
    "fails when a migration changes the schema and this file does not). The rules behind the tables are in",
    "docs/ledger.md, docs/budgets-goals-bills.md and docs/decisions.md#storage. Postgres columns read",
    "`name type`, then `null` when nullable and `= default` when one is set; an index reads",
    "`CREATE [UNIQUE] INDEX name (columns)` (btree, on the table named above, unless it says otherwise).",
    "",
    "## SQLite",
    await sqliteSection(),
    "",
    "## Postgres",
    await postgresSection(),
    "",
  ].join("\n");
  if (check) {
    let current = "";
    try {
      current = readFileSync(REPORT, "utf8");
    } catch {
      // a missing report differs
    }
    if (current !== report) {
      console.error("docs/schema.md is not what the migrations make: run `npm run schema` and commit the result.");
      process.exit(1);
    }
    console.log("docs/schema.md matches the migrations on both engines.");
    return;
  }
  writeFileSync(REPORT, report);
  console.log(`wrote ${REPORT}`);
}

await main();
