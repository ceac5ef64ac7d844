/**
 * Several processes starting together over one fresh Postgres (a deploy behind a load balancer) would
 * race: Knex's migration lock refuses the losers instead of waiting, and two knowledge-base seeds insert
 * the same entries. Start-up work therefore runs under one Postgres advisory lock, held on a connection
 * of its own: the others wait, then find the schema current and the knowledge base seeded. SQLite has
 * one process by design and needs none.
 */
import type { Knex } from "knex";
import type pg from "pg";
import { dialect } from "./knex.js";

const STARTUP_LOCK = "finance-mcp:startup";

export async function withStartupLock<T>(db: Knex, fn: () => Promise<T>): Promise<T> {
  if (dialect(db) !== "postgres") return fn();
  const conn = (await db.client.acquireConnection()) as pg.Client;
  try {
    await conn.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [STARTUP_LOCK]);
    try {
      return await fn();
    } finally {
      await conn.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [STARTUP_LOCK]);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}
