/**
 * The first row of one constant statement, run on a pooled connection directly, for the lookups every
 * request makes (a token by its hash): even db.raw spends more CPU in knex (builder, runner, bindings
 * formatting) than SQLite spends running the query (measured in a loop: 27–46 µs a lookup through db.raw,
 * 7–14 µs like this; on Postgres 170–220 against 115–120 µs of client CPU, and the server parses and
 * plans it once per connection instead of once per call). The connection still comes from knex's pool,
 * so a transaction holding SQLite's one connection is waited for as before, and knex's "query" event is
 * still emitted, so statement counters and query logs see the lookup. The engines differ in how a
 * statement is kept: SQLite's connection caches the prepared statement by its text (statement-cache.ts);
 * pg prepares a named statement once per connection, with `$n` placeholders (README.md here).
 */
import type { Knex } from "knex";
import { dialect } from "../knex.js";

/** The parts of knex's client used to run the lookup on a pooled connection directly. */
interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(conn: unknown): Promise<unknown>;
  emit(event: "query", query: { sql: string; bindings: unknown[]; method: string }): boolean;
}
type SqliteConn = { prepare(sql: string): { get(...params: unknown[]): unknown } };
type PgConn = { query(q: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }> };

/** A constant statement with `?` placeholders, and the name pg prepares it under (used for no other text). */
export interface PreparedStatement {
  sql: string;
  name: string;
}

export async function preparedFirst(db: Knex, statement: PreparedStatement, values: unknown[]): Promise<Record<string, unknown> | undefined> {
  const client = db.client as PoolClient;
  client.emit("query", { sql: statement.sql, bindings: values, method: "raw" });
  const conn = await client.acquireConnection();
  try {
    if (dialect(db) === "sqlite") return (conn as SqliteConn).prepare(statement.sql).get(...values) as Record<string, unknown> | undefined;
    let n = 0;
    const text = statement.sql.replace(/\?/g, () => `$${++n}`);
    const result = await (conn as PgConn).query({ name: statement.name, text, values });
    return result.rows[0];
  } finally {
    await client.releaseConnection(conn);
  }
}
