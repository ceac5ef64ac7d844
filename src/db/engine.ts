/**
 * What the engine behind a database means for the code outside src/db, each fact named for what it is
 * and saying why SQLite and Postgres differ, so that no module outside src/db asks which engine it runs
 * on (docs/decisions.md#engine-facts-in-src-db). ESLint (eslint.config.js, "engine identity") refuses
 * `dialect`, `dialectOf` and an engine name compared outside src/db; the layering rules refuse the
 * drivers (pg, better-sqlite3) there.
 */
import type { Knex } from "knex";
import type pg from "pg";
import { createDb, dialect, dialectOf, sqlitePath } from "./knex.js";

/**
 * Whether several server processes may share this database. Postgres takes any number of them, so what
 * one process does that another must see (a change event, a revoked token, the answer to another
 * process's question) travels over LISTEN/NOTIFY. SQLite is served by one process per file
 * (server-lock.ts): nothing to tell anyone, and no listener to run.
 */
export function sharedByProcesses(db: Knex): boolean {
  return dialect(db) === "postgres";
}

/**
 * Whether the database's writers already run one at a time. SQLite has one writer per file and knex
 * holds its one connection: a write transaction excludes every other, so no lock between writers is
 * needed and a statement costs no round trip. Postgres runs writers concurrently, over a network, so
 * writes take locks and the bookkeeping is folded into as few statements as it can be.
 */
export function writesAreSerial(db: Knex): boolean {
  return dialect(db) !== "postgres";
}

/**
 * Whether the driver runs each statement synchronously on the event loop: better-sqlite3 does (the
 * process does nothing else meanwhile, src/http/turns.ts spreads requests over turns); pg waits on a socket.
 */
export function blocksEventLoop(db: Knex): boolean {
  return dialect(db) === "sqlite";
}

/** The engine's name for people (the listening log line). */
export function engineName(url: string): string {
  return dialectOf(url) === "sqlite" ? "SQLite" : "Postgres";
}

/**
 * The file of a `sqlite:` URL, which one process holds alone (server-lock.ts) and whose folder is made
 * first (sqlite-file.ts); undefined for an in-memory database and for Postgres, which have no file.
 */
export function sqliteFileOf(url: string): string | undefined {
  if (dialectOf(url) !== "sqlite") return undefined;
  const path = sqlitePath(url);
  return path === ":memory:" ? undefined : path;
}

/**
 * The database start-up work (migrations, the knowledge base's seed) runs on. Postgres: a pool of its
 * own, without the request bounds (knex.ts#RequestBounds), since a migration may rewrite a large table;
 * the caller destroys it when it is not `requests`. SQLite: the request database itself: its only bound
 * is the wait for its one connection, and an in-memory database exists only on that connection.
 */
export function startupDb(url: string, requests: Knex): Knex {
  return dialectOf(url) === "postgres" ? createDb(url) : requests;
}

/** The largest size of the database's pool (SQLite: its one connection). */
export function poolMax(db: Knex): number {
  return Number((db.client.config as { pool?: { max?: number } }).pool?.max ?? 0);
}

/** A LISTEN session's connection and its notifications (Postgres only: sharedByProcesses). */
export type ListenSession = pg.Client;
export type Notification = pg.Notification;

/**
 * A connection outside the pool, for LISTEN (which must stay on one session for as long as it listens,
 * so it cannot be lent back to the pool). Only where sharedByProcesses(db).
 */
export async function listenSession(db: Knex): Promise<ListenSession> {
  return (await (db.client as { acquireRawConnection(): Promise<unknown> }).acquireRawConnection()) as ListenSession;
}

/**
 * A transaction config that reads one snapshot of the whole database for every statement in it (an
 * export's sections agree with each other): REPEATABLE READ, read only, on Postgres, whose default READ
 * COMMITTED sees each statement's own snapshot; nothing on SQLite, whose transaction reads one already.
 */
export function snapshotReads(db: Knex): Knex.TransactionConfig {
  return (dialect(db) === "postgres" ? { isolationLevel: "repeatable read", readOnly: true } : {}) as Knex.TransactionConfig;
}
