/**
 * Bulk seeding of the benchmark data (scripts/bench/data.ts) into a fresh database that the project's
 * own migrations created:
 *   SQLite    one transaction, a prepared statement per table through better-sqlite3 directly;
 *   Postgres  multi-row INSERT … SELECT FROM json_populate_recordset($1) in batches, through pg directly.
 * The secondary indexes of the two big tables are dropped before and recreated after the load (from
 * their own definitions in sqlite_master / pg_indexes, so the indexes measured are exactly the
 * migrations' ones). Columns are read from the database, not assumed: a column the data does not fill
 * is derived when it is a folded key (`category_key` ← foldKey(category)), left to its default when it has
 * one, and otherwise stops the seeding with a message saying which column to add here.
 *
 * Triggers on the big tables are dropped around the load too (on SQLite there is no other way to keep
 * them from firing a million times; on Postgres `session_replication_role = replica` already silences
 * them, but only for a superuser) and recreated from their own definitions afterwards. What they
 * maintain is then rebuilt as the migration that added it backfilled it (DERIVED).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest, migrationsDirectory } from "../../src/db/migrate.js";
import { foldKey } from "../../src/domain/shared/text.js";
import type { Row, TableRows } from "./data.js";

const BIG_TABLES = ["transactions", "transaction_tags"];

/** The SQL of the expense totals' migration, imported so that the rebuild cannot drift from it. */
const expenseTotals = (await import(pathToFileURL(join(migrationsDirectory, "202611220101_add_expense_day_totals.js")).href)) as {
  backfillTagsKeySql(pg: boolean): string;
  BACKFILL_TOTALS_SQL: string;
};

/** The same for the recurring payees' summary. */
const recurringPayees = (await import(pathToFileURL(join(migrationsDirectory, "20261125170000_add_recurring_payees.js")).href)) as {
  backfillSql(pg: boolean): string;
};

/**
 * Tables (and columns) the big tables' triggers keep, and how to rebuild each from scratch after a load
 * that ran without the triggers (the same statements as its migration's backfill), in this order.
 */
const DERIVED: { table: string; rebuild: (pg: boolean) => string[] }[] = [
  {
    table: "wallet_month_totals",
    rebuild: () => [
      "DELETE FROM wallet_month_totals",
      `INSERT INTO wallet_month_totals (user_id, wallet_id, month, total_minor)
         SELECT user_id, wallet_id, substr(date, 1, 7), SUM(amount_minor) FROM transactions
          GROUP BY user_id, wallet_id, substr(date, 1, 7) HAVING SUM(amount_minor) <> 0`,
    ],
  },
  {
    // transactions.tags_key first: the totals are keyed by it.
    table: "expense_day_totals",
    rebuild: (pg) => ["DELETE FROM expense_day_totals", expenseTotals.backfillTagsKeySql(pg), expenseTotals.BACKFILL_TOTALS_SQL],
  },
  {
    table: "recurring_payees",
    rebuild: (pg) => ["DELETE FROM recurring_payees", recurringPayees.backfillSql(pg)],
  },
];
const PG_BATCH = 5000;
const SQLITE_BATCH = 200;
const SQLITE_MAX_VARIABLES = 32766;

export interface SeedStats {
  seconds: number;
  rows: Record<string, number>;
  /** Seconds spent recreating the dropped indexes (included in seconds). */
  indexSeconds: number;
}

interface ColumnInfo {
  name: string;
  required: boolean;
  pgType?: string;
}

type Plan = { columns: string[]; value: (row: Row, column: string) => unknown };

function plan(table: string, available: ColumnInfo[], sample: Row): Plan {
  const keys = new Set(Object.keys(sample));
  const columns: string[] = [];
  const derived = new Map<string, string>();
  for (const c of available) {
    if (keys.has(c.name)) {
      columns.push(c.name);
    } else if (c.name.endsWith("_key") && keys.has(c.name.slice(0, -4))) {
      columns.push(c.name);
      derived.set(c.name, c.name.slice(0, -4));
    } else if (c.required) {
      throw new Error(
        `bench seeding: ${table}.${c.name} is required (NOT NULL, no default) and the benchmark data has no value for it; add it to scripts/bench/data.ts`,
      );
    }
  }
  const value = (row: Row, column: string): unknown => {
    const from = derived.get(column);
    if (from === undefined) return row[column];
    const v = row[from];
    return typeof v === "string" ? foldKey(v) : v;
  };
  return { columns, value };
}

/** The first row and an iterator over all rows (the first one included). */
function peek(rows: Iterable<Row>): { first: Row | undefined; all: Iterable<Row> } {
  const it = rows[Symbol.iterator]();
  const head = it.next();
  if (head.done) return { first: undefined, all: [] };
  return {
    first: head.value,
    all: {
      *[Symbol.iterator]() {
        yield head.value;
        for (let r = it.next(); !r.done; r = it.next()) yield r.value;
      },
    },
  };
}

async function migrate(url: string): Promise<void> {
  const db = createDb(url);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

export type SeedLog = (message: string) => void;

const since = (t: number) => `${((performance.now() - t) / 1000).toFixed(1)} s`;

export async function seedSqlite(path: string, tables: TableRows[], log: SeedLog = () => undefined): Promise<SeedStats> {
  const started = performance.now();
  await migrate(`sqlite:${path}`);
  log(`migrated in ${since(started)}`);
  const db = new Database(path);
  const rows: Record<string, number> = {};
  let indexSeconds = 0;
  try {
    // No journal while loading a database nobody else has open yet; WAL (what the server uses) after.
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.pragma("cache_size = -2097152");
    db.pragma("temp_store = MEMORY");
    db.pragma("foreign_keys = OFF");
    const indexes = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${BIG_TABLES.map(() => "?").join(", ")})`)
      .all(...BIG_TABLES) as { name: string; sql: string }[];
    const triggers = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (${BIG_TABLES.map(() => "?").join(", ")})`)
      .all(...BIG_TABLES) as { name: string; sql: string }[];
    const derived = DERIVED.filter((d) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(d.table) !== undefined);
    db.transaction(() => {
      for (const tr of triggers) db.exec(`DROP TRIGGER ${q(tr.name)}`);
      for (const ix of indexes) db.exec(`DROP INDEX ${q(ix.name)}`);
      for (const { table, rows: source } of tables) {
        const { first, all } = peek(source);
        rows[table] = 0;
        if (!first) continue;
        const info = db.prepare(`PRAGMA table_info(${q(table)})`).all() as { name: string; notnull: number; dflt_value: unknown; pk: number }[];
        const p = plan(
          table,
          info.map((c) => ({ name: c.name, required: c.notnull === 1 && c.dflt_value === null && c.pk === 0 })),
          first,
        );
        // Multi-row statements: SQLITE_BATCH rows per call, then single rows for the remainder.
        const width = p.columns.length;
        const tuple = `(${p.columns.map(() => "?").join(", ")})`;
        const insert = (count: number) =>
          db.prepare(`INSERT INTO ${q(table)} (${p.columns.map(q).join(", ")}) VALUES ${new Array(count).fill(tuple).join(", ")}`);
        const perStatement = Math.max(1, Math.min(SQLITE_BATCH, Math.floor(SQLITE_MAX_VARIABLES / width)));
        const many = insert(perStatement);
        const one = insert(1);
        const values: unknown[] = new Array(width * perStatement);
        let filled = 0;
        let n = 0;
        for (const row of all) {
          for (let i = 0; i < width; i++) {
            const v = p.value(row, p.columns[i]!);
            values[filled * width + i] = typeof v === "boolean" ? (v ? 1 : 0) : v;
          }
          n++;
          if (++filled === perStatement) {
            many.run(values);
            filled = 0;
          }
        }
        for (let r = 0; r < filled; r++) one.run(values.slice(r * width, (r + 1) * width));
        rows[table] = n;
        if (n >= 10_000) log(`${table}: ${n} rows after ${since(started)}`);
      }
      const t0 = performance.now();
      for (const ix of indexes) db.exec(ix.sql);
      indexSeconds = (performance.now() - t0) / 1000;
      log(`${indexes.length} indexes recreated in ${indexSeconds.toFixed(1)} s`);
      const t1 = performance.now();
      for (const d of derived) for (const sql of d.rebuild(false)) db.exec(sql);
      for (const tr of triggers) db.exec(tr.sql);
      log(`${derived.map((d) => d.table).join(", ") || "no derived tables"} rebuilt and ${triggers.length} triggers recreated in ${since(t1)}`);
    })();
    db.pragma("journal_mode = WAL");
  } finally {
    db.close();
  }
  return { seconds: (performance.now() - started) / 1000, rows, indexSeconds };
}

export async function seedPostgres(url: string, tables: TableRows[], log: SeedLog = () => undefined): Promise<SeedStats> {
  const started = performance.now();
  await migrate(url);
  log(`migrated in ${since(started)}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rows: Record<string, number> = {};
  let indexSeconds = 0;
  try {
    await client.query("SET synchronous_commit = off");
    await client.query("SET maintenance_work_mem = '256MB'");
    // Foreign-key checks are triggers in Postgres, one per inserted row; the generated data is
    // consistent by construction, so the load skips them (superuser only, as on this machine).
    await client.query("SET session_replication_role = replica").catch(() => undefined);
    const indexes = (
      await client.query<{ indexname: string; indexdef: string }>(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i
          WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
            AND i.indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid IN (SELECT oid FROM pg_class WHERE relname = ANY($1)))`,
        [BIG_TABLES],
      )
    ).rows;
    // Keys too: a random text primary key costs more per inserted row than everything else together,
    // and building it afterwards is a sort. Foreign keys that hang on these keys go first and come back
    // last (validated again, so the result is the migrations' schema exactly).
    const constraints = (
      await client.query<{ conname: string; tbl: string; contype: string; def: string }>(
        `SELECT c.conname, t.relname AS tbl, c.contype, pg_get_constraintdef(c.oid) AS def
           FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
          WHERE t.relnamespace = current_schema()::regnamespace
            AND ((t.relname = ANY($1) AND c.contype IN ('p', 'u', 'f'))
              OR (c.contype = 'f' AND c.confrelid IN (SELECT oid FROM pg_class WHERE relname = ANY($1) AND relnamespace = current_schema()::regnamespace)))`,
        [BIG_TABLES],
      )
    ).rows;
    const triggers = (
      await client.query<{ tgname: string; tbl: string; def: string }>(
        `SELECT t.tgname, c.relname AS tbl, pg_get_triggerdef(t.oid) AS def
           FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE NOT t.tgisinternal AND c.relname = ANY($1) AND c.relnamespace = current_schema()::regnamespace`,
        [BIG_TABLES],
      )
    ).rows;
    const derived: typeof DERIVED = [];
    for (const d of DERIVED) if ((await client.query("SELECT to_regclass($1) AS t", [d.table])).rows[0].t !== null) derived.push(d);
    const order = (c: { contype: string }) => (c.contype === "f" ? 0 : 1);
    constraints.sort((a, b) => order(a) - order(b));
    await client.query("BEGIN");
    for (const c of constraints) await client.query(`ALTER TABLE ${q(c.tbl)} DROP CONSTRAINT ${q(c.conname)}`);
    for (const ix of indexes) await client.query(`DROP INDEX ${q(ix.indexname)}`);
    for (const tr of triggers) await client.query(`DROP TRIGGER ${q(tr.tgname)} ON ${q(tr.tbl)}`);
    for (const { table, rows: source } of tables) {
      const { first, all } = peek(source);
      rows[table] = 0;
      if (!first) continue;
      const info = (
        await client.query<{ column_name: string; is_nullable: string; column_default: string | null; is_generated: string; is_identity: string }>(
          `SELECT column_name, is_nullable, column_default, is_generated, is_identity FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          [table],
        )
      ).rows.filter((c) => c.is_generated !== "ALWAYS");
      const p = plan(
        table,
        info.map((c) => ({ name: c.column_name, required: c.is_nullable === "NO" && c.column_default === null && c.is_identity !== "YES" })),
        first,
      );
      // One JSON array per batch, turned into rows of the table's own type by Postgres (faster than
      // unnest over one array parameter per column, and the column types come from the table).
      const cols = p.columns.map(q).join(", ");
      const sql = `INSERT INTO ${q(table)} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${q(table)}, $1::json)`;
      let batch: Record<string, unknown>[] = [];
      let n = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await client.query(sql, [JSON.stringify(batch)]);
        batch = [];
      };
      for (const row of all) {
        const o: Record<string, unknown> = {};
        for (const c of p.columns) o[c] = p.value(row, c);
        batch.push(o);
        n++;
        if (batch.length >= PG_BATCH) await flush();
      }
      await flush();
      rows[table] = n;
      if (n >= 10_000) log(`${table}: ${n} rows after ${since(started)}`);
    }
    const t0 = performance.now();
    for (const c of [...constraints].reverse()) await client.query(`ALTER TABLE ${q(c.tbl)} ADD CONSTRAINT ${q(c.conname)} ${c.def}`);
    for (const ix of indexes) await client.query(ix.indexdef);
    indexSeconds = (performance.now() - t0) / 1000;
    log(`${constraints.length} constraints and ${indexes.length} indexes recreated in ${indexSeconds.toFixed(1)} s`);
    const t2 = performance.now();
    for (const d of derived) for (const sql of d.rebuild(true)) await client.query(sql);
    for (const tr of triggers) await client.query(tr.def);
    log(`${derived.map((d) => d.table).join(", ") || "no derived tables"} rebuilt and ${triggers.length} triggers recreated in ${since(t2)}`);
    await client.query("COMMIT");
    // What autovacuum does shortly after a bulk load (since Postgres 13 it vacuums insert-only tables
    // too): statistics, which the planner needs to pick the indexes, and the visibility map, without
    // which an index-only scan still visits the heap. Done here, not by autovacuum in the middle of a row.
    const t1 = performance.now();
    await client.query("VACUUM (ANALYZE)");
    log(`vacuumed and analyzed in ${since(t1)}`);
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
  return { seconds: (performance.now() - started) / 1000, rows, indexSeconds };
}
