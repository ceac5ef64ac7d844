/**
 * A bounded cache of prepared statements for one better-sqlite3 connection.
 *
 * knex's better-sqlite3 dialect and rate-limiter-flexible's SQLite store both call `prepare(sql)` for every
 * query they run, and compiling the SQL was the largest single cost of a cheap call (`prepare` was 14 % of
 * the server's CPU serving whoami, 5–15 % of every tool profiled; docs/history/perf-what-was-changed-for-the-misses.md). Wrapping the
 * connection's `prepare` makes both reuse the compiled statement without changing either library.
 *
 * The cache must behave exactly like a fresh `prepare`, so:
 * - it is bounded (least recently used out): whereIn lists of varying length make many distinct texts;
 * - a statement whose modes were changed (`safeIntegers`, `pluck`, `expand`, `raw`) is put back to what a
 *   fresh statement of this connection would have before it is handed out again (knex calls
 *   `safeIntegers(x)` on a statement when a query has options);
 * - a statement given permanent bindings (`bind`) is never handed out again;
 * - a statement still busy (an open `iterate()`) is not handed out: a fresh one is prepared instead;
 * - changing the connection's `defaultSafeIntegers` empties the cache, since statements take the default
 *   when they are prepared.
 * SQLite recompiles a cached statement by itself when the schema changes (sqlite3_prepare_v3), so
 * migrations on the same connection need nothing here.
 * The cache lives on the connection object, so a connection the pool destroys takes its cache with it.
 */
import type Database from "better-sqlite3";

export const DEFAULT_STATEMENT_CACHE_SIZE = 300;

type Statement = Database.Statement;

interface Entry {
  statement: Statement;
  /** A mode was changed since it was prepared or last handed out. */
  dirty: boolean;
  /** bind() was called: the statement can no longer take parameters per call. */
  bound: boolean;
}

export interface StatementCacheStats {
  size: number;
  hits: number;
  misses: number;
}

const STATS = Symbol("statementCacheStats");

/** Installs the cache on `conn` (once; a second call does nothing) and returns the connection. */
export function cacheStatements<T extends Database.Database>(conn: T, maxEntries = DEFAULT_STATEMENT_CACHE_SIZE): T {
  const target = conn as T & { [STATS]?: () => StatementCacheStats };
  if (target[STATS]) return conn;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);

  const prepare = conn.prepare.bind(conn) as (sql: string) => Statement;
  const setDefault = conn.defaultSafeIntegers.bind(conn) as (...on: boolean[]) => T;
  const cache = new Map<string, Entry>();
  // better-sqlite3 has no getter for the connection's default, so ask a statement prepared under it.
  let safeDefault = typeof prepare("SELECT 1").pluck().get() === "bigint";
  let hits = 0;
  let misses = 0;

  const track = (statement: Statement): Entry => {
    const entry: Entry = { statement, dirty: false, bound: false };
    for (const mode of ["safeIntegers", "pluck", "expand", "raw"] as const) {
      const original = statement[mode] as (this: Statement, ...on: boolean[]) => Statement;
      Object.defineProperty(statement, mode, {
        configurable: true,
        writable: true,
        // The arguments pass through as given: the driver tells "no argument" (= true) from undefined.
        value(this: Statement, ...on: boolean[]) {
          entry.dirty = true;
          return original.apply(this, on);
        },
      });
    }
    const bind = statement.bind as (this: Statement, ...params: unknown[]) => Statement;
    Object.defineProperty(statement, "bind", {
      configurable: true,
      writable: true,
      value(this: Statement, ...params: unknown[]) {
        entry.bound = true;
        return bind.apply(this, params);
      },
    });
    return entry;
  };

  const cachedPrepare = (sql: string): Statement => {
    const entry = cache.get(sql);
    if (entry && !entry.bound && !entry.statement.busy) {
      hits++;
      cache.delete(sql); // re-inserted last: Map keeps insertion order, so the first key is the least recent
      cache.set(sql, entry);
      if (entry.dirty) {
        const s = entry.statement;
        // Each of these leaves the other modes alone unless it is the one set, so together they restore
        // the plain row-object mode whichever was on.
        Object.getPrototypeOf(s).pluck.call(s, false);
        Object.getPrototypeOf(s).expand.call(s, false);
        Object.getPrototypeOf(s).raw.call(s, false);
        Object.getPrototypeOf(s).safeIntegers.call(s, safeDefault);
        entry.dirty = false;
      }
      return entry.statement;
    }
    misses++;
    const statement = prepare(sql);
    if (entry) cache.delete(sql);
    cache.set(sql, track(statement));
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return statement;
  };

  Object.defineProperty(conn, "prepare", { configurable: true, writable: true, value: cachedPrepare });
  Object.defineProperty(conn, "defaultSafeIntegers", {
    configurable: true,
    writable: true,
    value(...on: boolean[]) {
      const result = setDefault(...on); // throws on a non-boolean, before the cache is touched
      const next = on.length === 0 || on[0] === true;
      if (next !== safeDefault) cache.clear();
      safeDefault = next;
      return result;
    },
  });
  Object.defineProperty(target, STATS, { value: (): StatementCacheStats => ({ size: cache.size, hits, misses }) });
  return conn;
}

/** Size and hit counts of a connection's cache (tests and diagnostics); undefined when it has none. */
export function statementCacheStats(conn: Database.Database): StatementCacheStats | undefined {
  return (conn as Database.Database & { [STATS]?: () => StatementCacheStats })[STATS]?.();
}
