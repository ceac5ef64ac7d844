/**
 * The per-token and per-user limits, on rate-limiter-flexible (a well-kept library with Postgres and
 * SQLite stores) rather than a hand-written counter. Counters live in the database table rate_limits, so
 * several processes over one Postgres share them exactly. Each store limiter has an in-memory insurance
 * limiter: if the store fails, limiting goes on from memory instead of failing open or failing requests.
 *
 * Besides the three limits of the service description (mcp, sse, tokens) the same table holds the login
 * throttle of the tokens endpoint (login_email, login_address; see login.ts).
 *
 * On SQLite the counters are written through knex's own connection, taken from its pool like any query.
 * A second connection to the file (what this used before) had two costs: its write invalidated the knex
 * connection's page cache on every call, and while a knex write transaction was open its upsert waited for
 * SQLite's write lock in the busy handler, which sleeps on the event loop: the transaction could not go on
 * and the whole process stood still for busy_timeout (5 s) before the insurance limiter answered.
 */
import type Database from "better-sqlite3";
import type { Knex } from "knex";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../config.js";
import { dialect } from "../db/knex.js";
import { createLoginThrottle, LOGIN_POLICIES, type LoginPolicy } from "./login.js";
import type { LimitDecision, LimitName, RateLimits } from "./types.js";

export const WINDOWS: Record<LimitName, number> = { mcp: 60, sse: 60, tokens: 3600 };

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
    return (RateLimiterSQLite.prototype as unknown as { _getRateLimiterRes(k: string, c: number, r: unknown): RateLimiterRes })._getRateLimiterRes.call(this, rlKey, changedPoints, row);
  }
}

/**
 * rate-limiter-flexible's Postgres store (11.4) with its upsert committed asynchronously: the counter is a
 * write, and with synchronous_commit on (the server's default) every call waited for a WAL flush to disk
 * before its tool could run, holding one of the pool's connections meanwhile. A lost counter increment
 * after a crash of Postgres costs at most the last fraction of a second of counting in a 60-s window;
 * asynchronous commit never makes the table inconsistent, and the committed count is visible to every
 * other process at once (only durability is deferred), so the limit across processes stays exact.
 * The setting is local to the statement's own transaction (set_config(…, true) in autocommit), so the
 * connection goes back to the pool with synchronous commits for everything else. Same statement as the
 * library's otherwise (same name scheme, counts and RETURNING), still a named prepared statement.
 * test/limits/limiter-store.test.ts fails if a new version of the library stops calling this hook.
 */
export class RateLimiterPostgresAsyncCommit extends RateLimiterPostgres {
  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    const self = this as unknown as { tableCreated: boolean; _getTableIdentifier(): string; _query(q: { name: string; text: string; values: unknown[] }): Promise<unknown> };
    if (!self.tableCreated) return Promise.reject(Error("Table is not created yet"));
    const t = self._getTableIdentifier();
    const newExpire = msDuration > 0 ? Date.now() + msDuration : null;
    const expire = forceExpire ? "$3" : `CASE WHEN ${t}.expire <= $4 THEN $3 ELSE ${t}.expire END`;
    return self._query({
      name: forceExpire ? "rlflx-upsert-force-async" : "rlflx-upsert-async",
      text: `INSERT INTO ${t} (key, points, expire)
               SELECT v.key, v.points, v.expire
                 FROM (VALUES ($1::varchar, $2::integer, $3::bigint)) AS v(key, points, expire),
                      (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
                WHERE true
             ON CONFLICT (key) DO UPDATE SET
               points = CASE WHEN (${t}.expire <= $4 OR 1=${forceExpire ? 1 : 0}) THEN $2 ELSE ${t}.points + ($2) END,
               expire = ${expire}
             RETURNING points, expire`,
      values: [key, points, newExpire, Date.now()],
    });
  }
}

interface LimiterSpec {
  keyPrefix: string;
  points: number;
  duration: number;
  blockDuration?: number;
}

export interface RateLimitOptions {
  /** Overrides of the login throttle's numbers (tests). */
  loginPolicies?: { email: LoginPolicy; address: LoginPolicy };
}

export function createRateLimits(db: Knex, config: Config, options: RateLimitOptions = {}): RateLimits {
  const points: Record<LimitName, number> = {
    mcp: config.rateLimits.mcpPerMinute,
    sse: config.rateLimits.ssePerMinute,
    tokens: config.rateLimits.tokensPerHour,
  };
  const sqlite = dialect(db) === "sqlite";

  const make = (spec: LimiterSpec): RateLimiterAbstract => {
    const common = { ...spec, tableName: "rate_limits", tableCreated: true };
    // The insurance limiter counts in this process's memory while the store fails: each process then
    // allows up to the full limit on its own, which is still a limit (neither fail-open nor 500s).
    const insuranceLimiter = new RateLimiterMemory({ ...spec, keyPrefix: `${spec.keyPrefix}_insurance` });
    return sqlite
      ? new RateLimiterSQLiteAutocommit({ ...common, storeClient: db, storeType: "knex", insuranceLimiter })
      : new RateLimiterPostgresAsyncCommit({ ...common, storeClient: db, storeType: "knex", insuranceLimiter });
  };

  const limiters = new Map<LimitName, RateLimiterAbstract>();
  for (const name of Object.keys(WINDOWS) as LimitName[]) {
    limiters.set(name, make({ keyPrefix: name, points: points[name], duration: WINDOWS[name] }));
  }

  const policies = options.loginPolicies ?? LOGIN_POLICIES;
  const login = createLoginThrottle(
    {
      email: make({ keyPrefix: "login_email", points: policies.email.refuseAfter, duration: policies.email.windowSeconds, blockDuration: policies.email.blockSeconds }),
      address: make({ keyPrefix: "login_address", points: policies.address.refuseAfter, duration: policies.address.windowSeconds, blockDuration: policies.address.blockSeconds }),
    },
    policies,
  );

  return {
    async consume(name, key): Promise<LimitDecision> {
      const limiter = limiters.get(name)!;
      try {
        const res = await limiter.consume(key, 1);
        return decision(name, points[name], res, true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decision(name, points[name], rejection, false);
        throw rejection;
      }
    },
    login,
    async close() {
      // Nothing of its own to close: the counters use the service's knex connections.
    },
  };
}

function decision(name: LimitName, limit: number, res: RateLimiterRes, allowed: boolean): LimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    windowSeconds: WINDOWS[name],
  };
}
