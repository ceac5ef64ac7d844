/**
 * The rate limits' counters in the database (table rate_limits), through rate-limiter-flexible's store
 * for the engine: its Postgres store, or its SQLite store with two hooks replaced (below). src/limits
 * chooses the limits; this chooses the store (docs/decisions.md#engine-facts-in-src-db).
 */
import type Database from "better-sqlite3";
import type { Knex } from "knex";
import { RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type IRateLimiterStoreOptions, type RateLimiterAbstract } from "rate-limiter-flexible";
import { dialect } from "./knex.js";

/**
 * rate-limiter-flexible's SQLite store (11.4), with two of its hooks replaced:
 * - it runs its upsert (one INSERT … ON CONFLICT DO UPDATE … RETURNING) inside a better-sqlite3
 *   transaction built anew on every consume: BEGIN, the upsert, COMMIT and four wrapper functions, 6 % of
 *   the CPU of a whoami call. One statement is atomic on its own in autocommit mode (SQLite undoes a failed
 *   statement's changes whatever the mode), so it runs alone: the same counts, one statement instead of three;
 * - knex's connection returns integers as BigInt (src/db/knex.ts), which the library's arithmetic cannot
 *   take, so its rows are turned into numbers (milliseconds and counts, far below 2^53) before it reads them.
 * test/limits/limiter-store.test.ts fails if a new version of the library stops calling these hooks.
 */
export class RateLimiterSQLiteAutocommit extends RateLimiterSQLite {
  async _upsertTransactionBetterSQLite3(conn: Database.Database, upsertQuery: string, upsertParams: unknown[]): Promise<unknown> {
    return conn.prepare(upsertQuery).get(...upsertParams);
  }

  _getRateLimiterRes(rlKey: string, changedPoints: number, result: { points: unknown; expire: unknown }): RateLimiterRes {
    const row = { points: Number(result.points), expire: result.expire == null ? null : Number(result.expire) };
    return (RateLimiterSQLite.prototype as unknown as { _getRateLimiterRes(k: string, c: number, r: unknown): RateLimiterRes })._getRateLimiterRes.call(
      this,
      rlKey,
      changedPoints,
      row,
    );
  }
}

/** A limiter counting in `db`'s table `tableName`, on the engine's store. */
export function databaseLimiter(db: Knex, options: Omit<IRateLimiterStoreOptions, "storeClient" | "storeType">): RateLimiterAbstract {
  const store = { ...options, storeClient: db, storeType: "knex" };
  return dialect(db) === "sqlite" ? new RateLimiterSQLiteAutocommit(store) : new RateLimiterPostgres(store);
}
