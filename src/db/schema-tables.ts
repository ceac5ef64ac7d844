/**
 * The live schema as data: every table of the database with its columns and its foreign keys, read from
 * the engine's own catalogue (sqlite_master and PRAGMAs; information_schema and pg_constraint). What
 * holds a person's rows is derived from it (src/account/tables.ts), so a table added by a later migration
 * is seen without a change here. Knex's own bookkeeping tables and SQLite's internal ones are left out.
 */
import type { Knex } from "knex";
import { rawRows } from "./dialect.js";
import { dialect } from "./knex.js";

export interface ForeignKey {
  column: string;
  refTable: string;
  refColumn: string;
  /** What the engine does to this row when the referenced row goes: "cascade", "set null", "no action", ... */
  onDelete: string;
}

export interface SchemaTable {
  name: string;
  columns: string[];
  foreignKeys: ForeignKey[];
}

const BOOKKEEPING = /^(knex_migrations|knex_migrations_lock|sqlite_.*)$/;
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Every table of the database, sorted by name. */
export async function readSchemaTables(db: Knex | Knex.Transaction): Promise<SchemaTable[]> {
  return dialect(db) === "postgres" ? postgresTables(db) : sqliteTables(db);
}

async function sqliteTables(db: Knex | Knex.Transaction): Promise<SchemaTable[]> {
  const names = rawRows(await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
    .map((r) => String(r.name))
    .filter((n) => !BOOKKEEPING.test(n));
  const out: SchemaTable[] = [];
  for (const name of names) {
    const columns = rawRows(await db.raw(`PRAGMA table_info(${quote(name)})`)).map((c) => String(c.name));
    const foreignKeys = rawRows(await db.raw(`PRAGMA foreign_key_list(${quote(name)})`)).map((f) => ({
      column: String(f.from),
      refTable: String(f.table),
      refColumn: String(f.to),
      onDelete: String(f.on_delete).toLowerCase(),
    }));
    out.push({ name, columns, foreignKeys });
  }
  return out;
}

async function postgresTables(db: Knex | Knex.Transaction): Promise<SchemaTable[]> {
  const columns = rawRows(
    await db.raw(`SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`),
  );
  // One row per column of each foreign key (a key over several columns gives several rows, paired by position).
  const keys = rawRows(
    await db.raw(`SELECT src.relname AS table_name, a.attname AS column_name, dst.relname AS ref_table, af.attname AS ref_column,
        CASE k.confdeltype WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'd' THEN 'set default' WHEN 'r' THEN 'restrict' ELSE 'no action' END AS on_delete
      FROM pg_constraint k
      JOIN pg_class src ON src.oid = k.conrelid
      JOIN pg_class dst ON dst.oid = k.confrelid
      JOIN LATERAL unnest(k.conkey, k.confkey) AS p(col, refcol) ON true
      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = p.col
      JOIN pg_attribute af ON af.attrelid = k.confrelid AND af.attnum = p.refcol
      WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace
      ORDER BY src.relname, k.conname, a.attname`),
  );
  const byName = new Map<string, SchemaTable>();
  for (const c of columns) {
    const name = String(c.table_name);
    if (BOOKKEEPING.test(name)) continue;
    const table = byName.get(name) ?? byName.set(name, { name, columns: [], foreignKeys: [] }).get(name)!;
    table.columns.push(String(c.column_name));
  }
  for (const k of keys) {
    byName.get(String(k.table_name))?.foreignKeys.push({
      column: String(k.column_name),
      refTable: String(k.ref_table),
      refColumn: String(k.ref_column),
      onDelete: String(k.on_delete),
    });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
