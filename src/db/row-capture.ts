/**
 * The audit's row capture (migration 20261125080102): which tables are captured, SQLite's capture
 * triggers made from the live schema, and reading a captured row back. Postgres's triggers are generic
 * (to_jsonb of the row) and made once by the migration. SQLite's must list the columns, and a trigger
 * naming a column stops a migration from dropping it or rebuilding its table: they are dropped before
 * every migration run (src/db/migrate.ts) and made from the live schema when the services start
 * (src/app.ts), so a column added by a later migration is captured too.
 */
import type { Knex } from "knex";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dialect } from "./knex.js";
import { packagePath } from "../package-root.js";

export interface CapturedTable {
  table: string;
  key: readonly string[];
}

/** The list lives beside the migrations (they use it too); read once. */
let captured: Promise<readonly CapturedTable[]> | undefined;
export function capturedTables(): Promise<readonly CapturedTable[]> {
  captured ??= import(pathToFileURL(join(packagePath("migrations"), "lib", "captured-tables.js")).href).then(
    (m: { CAPTURED_TABLES: readonly CapturedTable[] }) => m.CAPTURED_TABLES,
  );
  return captured;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const jsonOf = (row: "NEW" | "OLD", columns: readonly string[]) => `json_object(${columns.map((c) => `'${c}', ${row}.${quote(c)}`).join(", ")})`;

function sqliteTriggers(table: string, key: readonly string[], columns: readonly string[]): { name: string; sql: string }[] {
  const events = [
    { event: "INSERT", row: "NEW" as const, before: "NULL", after: jsonOf("NEW", columns) },
    { event: "UPDATE", row: "NEW" as const, before: jsonOf("OLD", columns), after: jsonOf("NEW", columns) },
    { event: "DELETE", row: "OLD" as const, before: jsonOf("OLD", columns), after: "NULL" },
  ];
  return events.map(({ event, row, before, after }) => {
    const name = `${table}_audit_rows_${event.toLowerCase()}`;
    return {
      name,
      sql:
        `CREATE TRIGGER ${quote(name)} AFTER ${event} ON ${quote(table)} ` +
        `WHEN EXISTS (SELECT 1 FROM audit_capture WHERE user_id = ${row}.user_id) BEGIN ` +
        `INSERT INTO audit_rows (user_id, table_name, row_key, before_json, after_json) ` +
        `VALUES (${row}.user_id, '${table}', ${jsonOf(row, key)}, ${before}, ${after}); END`,
    };
  });
}

const TRIGGER_NAME = /_audit_rows_(insert|update|delete)$/;

/** SQLite: drops the capture triggers (before migrations run). Postgres: nothing to do. */
export async function dropRowCapture(db: Knex): Promise<void> {
  if (dialect(db) !== "sqlite") return;
  const triggers = (await db("sqlite_master").where({ type: "trigger" }).select("name")) as { name: string }[];
  for (const { name } of triggers) if (TRIGGER_NAME.test(name)) await db.raw(`DROP TRIGGER IF EXISTS ${quote(name)}`);
}

/** SQLite: makes (or remakes, when a table's columns changed) the capture triggers. Postgres: nothing to do. */
export async function ensureRowCapture(db: Knex): Promise<void> {
  if (dialect(db) !== "sqlite") return;
  if (!(await db.schema.hasTable("audit_capture"))) return; // before migration 20261125080102 (a rollback)
  for (const { table, key } of await capturedTables()) {
    const columns = ((await db.raw(`PRAGMA table_info(${quote(table)})`)) as { name: string }[]).map((c) => String(c.name));
    for (const t of sqliteTriggers(table, key, columns)) {
      const found = (await db("sqlite_master").where({ type: "trigger", name: t.name }).first("sql")) as { sql?: string } | undefined;
      if (found?.sql === t.sql) continue;
      if (found) await db.raw(`DROP TRIGGER ${quote(t.name)}`);
      await db.raw(t.sql);
    }
  }
}
