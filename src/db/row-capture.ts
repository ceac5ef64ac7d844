/**
 * The audit's row capture (migration 20261125080102): which tables are captured, SQLite's capture
 * triggers made from the live schema, and reading a captured row back. Postgres's triggers are generic
 * (to_jsonb of the row) and made once by the migration. SQLite's must list the columns, and a trigger
 * naming a column stops a migration from dropping it or rebuilding its table: a migration run that has
 * migrations to apply drops them first and makes them again from the live schema right after
 * (src/db/migrate.ts), so a column added by a later migration is captured too, and a run with nothing
 * to apply leaves them alone (issue 47: every CLI command dropped them beside a live server).
 *
 * Capture is checked where it matters: inside each write's transaction (a write whose capture is not
 * whole is refused, never committed without its rows), on start and on /readyz
 * (docs/decisions.md#capture-checked-in-the-write).
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

/** The triggers each captured table should have now, from its live columns (absent tables: none). */
async function sqliteExpected(db: Knex): Promise<{ table: string; triggers: { name: string; sql: string }[] }[]> {
  const out = [];
  for (const { table, key } of await capturedTables()) {
    const columns = ((await db.raw(`PRAGMA table_info(${quote(table)})`)) as { name: string }[]).map((c) => String(c.name));
    if (columns.length > 0) out.push({ table, triggers: sqliteTriggers(table, key, columns) });
  }
  return out;
}

/** SQLite: makes (or remakes, when a table's columns changed) the capture triggers, in one transaction. Postgres: remakes a missing or disabled trigger. */
export async function ensureRowCapture(db: Knex): Promise<void> {
  if (!(await db.schema.hasTable("audit_capture"))) return; // before migration 20261125080102 (a rollback)
  if (dialect(db) === "postgres") return ensurePgCapture(db);
  await db.transaction(async (trx) => {
    const existing = new Map(
      ((await trx("sqlite_master").where({ type: "trigger" }).select("name", "sql")) as { name: string; sql: string }[]).map((t) => [t.name, t.sql]),
    );
    for (const { triggers } of await sqliteExpected(trx))
      for (const t of triggers) {
        const found = existing.get(t.name);
        if (found === t.sql) continue;
        if (found !== undefined) await trx.raw(`DROP TRIGGER ${quote(t.name)}`);
        await trx.raw(t.sql);
      }
  });
}

/** Postgres: each captured table's one generic trigger (migration 20261125080102), when missing or disabled. */
async function ensurePgCapture(db: Knex): Promise<void> {
  const missing = new Set(await pgCaptureGaps(db));
  for (const { table, key } of await capturedTables()) {
    // A table a later migration makes has no trigger yet (a run that stopped before it).
    if (!missing.has(table) || !(await db.schema.hasTable(table))) continue;
    await db.transaction(async (trx) => {
      await trx.raw(`DROP TRIGGER IF EXISTS ${table}_audit_rows ON ${table}`);
      await trx.raw(
        `CREATE TRIGGER ${table}_audit_rows AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION audit_rows_capture(${key.map((k) => `'${k}'`).join(", ")})`,
      );
    });
  }
}

/**
 * Postgres: how many captured tables have their capture trigger, enabled. A sub-select, so the write
 * pipeline folds it into the statement that opens a write (src/writes/bookkeeping.ts): no round trip of
 * its own. Bind the table names (capturedTableNames) as its one text[] parameter.
 */
export const PG_CAPTURE_COUNT_SQL = `(SELECT count(*)::int FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
   WHERE tg.tgrelid = ANY (SELECT to_regclass(n) FROM unnest(?::text[]) AS n)
     AND tg.tgname = c.relname || '_audit_rows' AND tg.tgenabled <> 'D')`;

export async function capturedTableNames(): Promise<string[]> {
  return (await capturedTables()).map((t) => t.table);
}

async function pgCaptureGaps(db: Knex): Promise<string[]> {
  const names = await capturedTableNames();
  const got = await db.raw(
    `SELECT c.relname AS name FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid
      WHERE tg.tgrelid = ANY (SELECT to_regclass(n) FROM unnest(?::text[]) AS n)
        AND tg.tgname = c.relname || '_audit_rows' AND tg.tgenabled <> 'D'`,
    [names],
  );
  const have = new Set((got.rows as { name: string }[]).map((r) => r.name));
  return names.filter((n) => !have.has(n));
}

/** The captured tables whose capture is missing or out of date (none: capture is whole). */
export async function rowCaptureGaps(db: Knex): Promise<string[]> {
  if (dialect(db) === "postgres") return pgCaptureGaps(db);
  const existing = new Map(
    ((await db("sqlite_master").where({ type: "trigger" }).select("name", "sql")) as { name: string; sql: string }[]).map((t) => [t.name, t.sql]),
  );
  const gaps: string[] = [];
  for (const { table, triggers } of await sqliteExpected(db)) if (triggers.some((t) => existing.get(t.name) !== t.sql)) gaps.push(table);
  return gaps;
}

/** A write found its capture missing: it is rolled back and refused (src/writes/pipeline.ts answers unavailable). */
export class RowCaptureMissing extends Error {
  constructor(readonly tables: readonly string[]) {
    super(`audit row capture missing for ${tables.join(", ")}`);
  }
}

/**
 * SQLite, per database file: the schema version at which capture was last found whole. Any CREATE or
 * DROP of a trigger changes the schema version, so while it holds, the triggers are as checked and a
 * write pays one PRAGMA for the check.
 */
const wholeAtVersion = new Map<string, number>();

function sqliteFile(db: Knex): string {
  return String((db.client.config.connection as { filename?: string } | undefined)?.filename ?? "");
}

/**
 * SQLite: inside a write's transaction, after it took the write lock (its first insert), so no other
 * process can change the schema before it commits: throws RowCaptureMissing unless every captured
 * table's triggers are there and name its live columns.
 */
export async function assertSqliteCapture(trx: Knex.Transaction): Promise<void> {
  const file = sqliteFile(trx);
  const version = Number(((await trx.raw("PRAGMA schema_version")) as { schema_version: number }[])[0]!.schema_version);
  if (wholeAtVersion.get(file) === version) return;
  const gaps = await rowCaptureGaps(trx);
  if (gaps.length > 0) throw new RowCaptureMissing(gaps);
  wholeAtVersion.set(file, version);
}

/** Postgres: the count PG_CAPTURE_COUNT_SQL gave inside the write's statement; throws unless every table has its trigger. */
export async function assertPgCaptureCount(count: number): Promise<void> {
  const names = await capturedTableNames();
  if (count < names.length) throw new RowCaptureMissing([`${names.length - count} of ${names.length} tables`]);
}
