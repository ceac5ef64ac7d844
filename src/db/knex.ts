/**
 * DATABASE_URL → one Knex instance. `postgres://`/`postgresql://` use pg; `sqlite:<path>` (or
 * `sqlite::memory:`) uses better-sqlite3.
 *
 * Row values differ by driver, so row mappers always coerce: BigInt(x) for money (pg returns BIGINT as
 * strings; better-sqlite3 is set to return every integer as BigInt so sums past 2^53 stay exact),
 * Number(x) for counts, Boolean(x) for flags. Dates are stored as 'YYYY-MM-DD' text and times as ISO-8601
 * UTC text on both dialects, so that they compare and sort identically.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import knexFactory, { type Knex } from "knex";
import pg from "pg";
import type Database from "better-sqlite3";
import { cacheStatements } from "./statement-cache.js";
import { BUSY_TIMEOUT_MS, BusyBreaker } from "./sqlite-busy.js";
import { paceStatements } from "./pace.js";
import { offLoopCheckpoints, SAFETY_NET_PAGES } from "./checkpoint.js";

export type Dialect = "sqlite" | "postgres";

// DATE would otherwise become a JS Date at local midnight, shifting calendar days.
pg.types.setTypeParser(1082, (v: string) => v);

export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//.test(url)) return "postgres";
  if (url.startsWith("sqlite:")) return "sqlite";
  throw new Error(`DATABASE_URL must start with postgres://, postgresql:// or sqlite:, got ${JSON.stringify(url.replace(/^([^/]*\/\/)[^@]*@/, "$1***@"))}`);
}

export function sqlitePath(url: string): string {
  const path = url.slice("sqlite:".length).replace(/^\/\//, "");
  return path === ":memory:" ? path : resolve(path);
}

/** Postgres: the request pool's size when none is given (DATABASE_POOL_MAX; docs/operations.md). */
export const DEFAULT_POOL_MAX = 10;

/**
 * How long request work may wait or run in the database (DATABASE_*_TIMEOUT_MS; docs/operations.md,
 * "When requests wait on the database"). Only the server's request pool has them: migrations, the CLI
 * and scripts run unbounded. Past a bound the call fails with a driver error that src/db/errors.ts turns
 * into `unavailable` (503, Retry-After), so a request never waits for ever behind another:
 *   acquireMs            a connection from the pool (both engines; knex's acquireConnectionTimeout);
 *   lockMs               one lock: a row, a table or an advisory lock such as the user's write lock (Postgres lock_timeout);
 *   statementMs          one statement, lock waits included (Postgres statement_timeout);
 *   idleInTransactionMs  a transaction left open with nothing running, a connection held by a path that
 *                        forgot it (Postgres idle_in_transaction_session_timeout: the session is ended).
 * On Postgres they are startup parameters of each connection: no statement per request.
 */
export interface RequestBounds {
  acquireMs: number;
  lockMs: number;
  statementMs: number;
  idleInTransactionMs: number;
}

export interface DbOptions {
  poolMax?: number;
  bounds?: RequestBounds;
  /** SQLite: fails writes fast after a full busy wait while a lock is held from outside (sqlite-busy.ts). */
  breaker?: BusyBreaker;
}

export function knexConfig(url: string, options: DbOptions = {}): Knex.Config {
  const { bounds } = options;
  // knex's own default is 60 s.
  const acquire = bounds ? { acquireConnectionTimeout: bounds.acquireMs } : {};
  if (dialectOf(url) === "postgres") {
    const connection = bounds
      ? {
          connectionString: url,
          statement_timeout: bounds.statementMs,
          lock_timeout: bounds.lockMs,
          idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
        }
      : url;
    return { client: "pg", connection, pool: { min: 0, max: options.poolMax ?? DEFAULT_POOL_MAX }, compileSqlOnError: false, ...acquire };
  }
  const filename = sqlitePath(url);
  if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true });
  return {
    client: "better-sqlite3",
    ...acquire,
    connection: { filename },
    useNullAsDefault: true,
    // knex would otherwise interpolate the bindings into the error's message: values would reach logs,
    // and a BigInt binding makes that formatting throw "str.replace is not a function" instead.
    compileSqlOnError: false,
    // One connection: SQLite has one writer anyway, and knex then serialises transactions in-process.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: Database.Database, done: (err: Error | null, conn: unknown) => void) {
        // knex prepares every query anew; the cache makes repeated SQL texts reuse their statement.
        cacheStatements(conn);
        conn.pragma("journal_mode = WAL");
        // The log is checkpointed by a worker thread, not inside a COMMIT (src/db/checkpoint.ts).
        if (filename !== ":memory:") conn.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
        conn.pragma("foreign_keys = ON");
        if (options.breaker) options.breaker.adopt(conn);
        else conn.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        conn.pragma("synchronous = NORMAL");
        conn.defaultSafeIntegers(true);
        done(null, conn);
      },
    },
  };
}

export function createDb(url: string, options: DbOptions = {}): Knex {
  if (dialectOf(url) === "postgres") return knexFactory(knexConfig(url, options));
  // SQLite: a write lock held from outside fails writes fast after the first full wait (sqlite-busy.ts).
  const breaker = new BusyBreaker();
  const db = knexFactory(knexConfig(url, { ...options, breaker }));
  breaker.watch(db);
  // The log copied back by a worker thread, off the event loop (src/db/checkpoint.ts).
  const filename = sqlitePath(url);
  const checkpoints = filename === ":memory:" ? undefined : offLoopCheckpoints(filename);
  if (checkpoints) {
    // knex's destroy() is its client's (knex itself is read-only): the worker goes with the pool.
    const client = db.client as { destroy(callback?: unknown): Promise<void> };
    const destroy = client.destroy.bind(client);
    client.destroy = async (callback?: unknown) => {
      await checkpoints.close();
      return destroy(callback);
    };
  }
  // Long statement chains give the event loop a turn every few milliseconds (src/db/pace.ts).
  paceStatements(db, checkpoints?.committed);
  return db;
}

export function dialect(db: Knex): Dialect {
  return db.client.config.client === "pg" ? "postgres" : "sqlite";
}
