/**
 * Many rows into several tables inside one transaction, as fast as each engine takes them
 * (`finance-mcp import`; docs/history/perf-import.md).
 *
 * Postgres: COPY ... FROM STDIN (pg-copy-streams), a chunk of up to PG_CHUNK_ROWS rows per COPY. Rows are
 * written into the open COPY as they are added, so the server indexes one part of a chunk while this
 * process reads and checks the next: a multi-row INSERT made both sides wait for each other, and left the
 * process idle three quarters of the time. SQLite: multi-row INSERTs of SQLITE_BATCH_ROWS (the engine is
 * in-process; there is no round trip to save).
 *
 * A row may bring children, rows of another table that refer to it (a transaction's tags): they go in
 * after the chunk that holds their parent has ended, so a foreign key finds its parent.
 *
 * Rows are plain column → value maps; a column absent from a row takes its default, as in an INSERT (a
 * chunk holds rows of one column set). Values are strings, numbers, bigints, booleans or null.
 */
import type { Knex } from "knex";
import type pg from "pg";
import { once } from "node:events";
import { finished } from "node:stream/promises";
import { from as copyFrom, type CopyStreamQuery } from "pg-copy-streams";
import { dialect } from "./knex.js";
import { limits } from "../../generated/limits.js";

export type BulkRow = Record<string, unknown>;

/**
 * Rows per COPY on Postgres: a chunk's children wait in memory until it ends. The spec's bulk-write cap
 * (x-limits.bulk_write_rows), so that no statement of a restore does more than a capped tool write: each
 * COPY fires the statement triggers (the recurring summary's set-based refresh) over at most this many rows
 * (docs/decisions.md#restore-and-the-cap).
 */
export const PG_CHUNK_ROWS = limits.bulkWriteRows;
/** Rows per INSERT on SQLite: well under its bound on bound parameters (about 20 columns a row). */
export const SQLITE_BATCH_ROWS = 500;
/** Text gathered before it is handed to the COPY stream (one CopyData message). */
const COPY_BUFFER_CHARS = 256 * 1024;

export interface BulkInsert {
  /** Adds a row of `table`; `children` (rows of other tables, by table) go in after it. May wait for the database. */
  add(table: string, row: BulkRow, children?: Readonly<Record<string, readonly BulkRow[]>>): Promise<void>;
  /** Every row added is in the database (of the transaction). */
  end(): Promise<void>;
  /** After a failure: leaves the connection ready for the transaction's rollback. */
  abort(): Promise<void>;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A value in COPY's text format: NULL as \N; backslash, newline, carriage return and tab escaped. */
function copyValue(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  if (typeof v === "boolean") return v ? "t" : "f";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return /[\\\n\r\t]/.test(s) ? s.replace(/[\\\n\r\t]/g, (c) => (c === "\\" ? "\\\\" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t")) : s;
}

const sameColumns = (a: readonly string[], row: BulkRow) => {
  const keys = Object.keys(row);
  return keys.length === a.length && keys.every((k, i) => k === a[i]);
};

/** One COPY of one table and column set; rows are written as they come, with the stream's backpressure. */
class CopyChunk {
  private text = "";
  private failure: unknown;
  private readonly done: Promise<void>;
  rows = 0;

  constructor(
    private readonly stream: CopyStreamQuery,
    readonly table: string,
    readonly columns: readonly string[],
  ) {
    this.done = finished(stream);
    this.done.catch((err: unknown) => (this.failure ??= err));
  }

  static open(conn: pg.Client, table: string, columns: readonly string[]): CopyChunk {
    const stream = conn.query(copyFrom(`COPY ${quote(table)} (${columns.map(quote).join(", ")}) FROM STDIN`));
    return new CopyChunk(stream, table, columns);
  }

  async write(row: BulkRow): Promise<void> {
    if (this.failure) throw this.failure;
    let line = "";
    for (let i = 0; i < this.columns.length; i++) line += (i === 0 ? "" : "\t") + copyValue(row[this.columns[i]!]);
    this.text += line + "\n";
    this.rows++;
    if (this.text.length >= COPY_BUFFER_CHARS) await this.send();
  }

  private async send(): Promise<void> {
    const text = this.text;
    this.text = "";
    if (!this.stream.write(text)) await Promise.race([once(this.stream, "drain"), this.done]);
    if (this.failure) throw this.failure;
  }

  async end(): Promise<void> {
    if (this.text) await this.send();
    this.stream.end();
    await this.done;
  }

  /** Sends CopyFail (the server ends the COPY with an error) and waits for the connection to be free. */
  async abort(): Promise<void> {
    if (this.stream.writableFinished || this.stream.destroyed) return this.done.catch(() => undefined);
    this.stream.destroy(new Error("import abandoned"));
    await this.done.catch(() => undefined);
  }
}

class PostgresBulkInsert implements BulkInsert {
  private chunk: CopyChunk | undefined;
  private children = new Map<string, BulkRow[]>();

  constructor(private readonly conn: pg.Client) {}

  async add(table: string, row: BulkRow, children?: Readonly<Record<string, readonly BulkRow[]>>): Promise<void> {
    if (this.chunk && (this.chunk.table !== table || !sameColumns(this.chunk.columns, row) || this.chunk.rows >= PG_CHUNK_ROWS)) await this.endChunk();
    this.chunk ??= CopyChunk.open(this.conn, table, Object.keys(row));
    await this.chunk.write(row);
    for (const [childTable, rows] of Object.entries(children ?? {})) {
      if (rows.length === 0) continue;
      const list = this.children.get(childTable) ?? [];
      for (const child of rows) list.push(child);
      this.children.set(childTable, list);
    }
  }

  private async endChunk(): Promise<void> {
    const chunk = this.chunk;
    this.chunk = undefined;
    if (chunk) await chunk.end();
    const children = this.children;
    this.children = new Map();
    for (const [table, rows] of children) {
      for (const row of rows) {
        if (this.chunk && (this.chunk.table !== table || !sameColumns(this.chunk.columns, row))) await this.closeChild();
        this.chunk ??= CopyChunk.open(this.conn, table, Object.keys(row));
        await this.chunk.write(row);
      }
      await this.closeChild();
    }
  }

  private async closeChild(): Promise<void> {
    const chunk = this.chunk;
    this.chunk = undefined;
    await chunk?.end();
  }

  end(): Promise<void> {
    return this.endChunk();
  }

  async abort(): Promise<void> {
    const chunk = this.chunk;
    this.chunk = undefined;
    this.children = new Map();
    await chunk?.abort();
  }
}

class SqliteBulkInsert implements BulkInsert {
  private batch: { table: string; rows: BulkRow[] } | undefined;
  private children = new Map<string, BulkRow[]>();

  constructor(private readonly trx: Knex.Transaction) {}

  async add(table: string, row: BulkRow, children?: Readonly<Record<string, readonly BulkRow[]>>): Promise<void> {
    // One column set per INSERT: knex fills a column some rows lack with NULL on SQLite, not its default.
    const first = this.batch?.rows[0];
    if (this.batch && (this.batch.table !== table || !sameColumns(Object.keys(first!), row) || this.batch.rows.length >= SQLITE_BATCH_ROWS)) await this.end();
    this.batch ??= { table, rows: [] };
    this.batch.rows.push(row);
    for (const [childTable, rows] of Object.entries(children ?? {})) {
      if (rows.length === 0) continue;
      const list = this.children.get(childTable) ?? [];
      for (const child of rows) list.push(child);
      this.children.set(childTable, list);
    }
  }

  async end(): Promise<void> {
    const batch = this.batch;
    this.batch = undefined;
    if (batch) await this.trx(batch.table).insert(batch.rows);
    const children = this.children;
    this.children = new Map();
    for (const [table, rows] of children) {
      for (let i = 0; i < rows.length; i += SQLITE_BATCH_ROWS) await this.trx(table).insert(rows.slice(i, i + SQLITE_BATCH_ROWS));
    }
  }

  abort(): Promise<void> {
    this.batch = undefined;
    this.children = new Map();
    return Promise.resolve();
  }
}

/**
 * A bulk insert on the transaction's own connection. On Postgres that connection is taken from knex's
 * transaction client (`client.acquireConnection`, the same reach as src/auth/tokens.ts; src/db/fast-paths):
 * COPY is not a query knex can run.
 */
export async function bulkInsert(trx: Knex.Transaction): Promise<BulkInsert> {
  if (dialect(trx) !== "postgres") return new SqliteBulkInsert(trx);
  const conn = (await (trx.client as { acquireConnection(): Promise<unknown> }).acquireConnection()) as pg.Client;
  return new PostgresBulkInsert(conn);
}
