/**
 * The per-token and per-user limits, on rate-limiter-flexible (a well-kept library with Postgres and
 * SQLite stores) rather than a hand-written counter. Counters live in the database table rate_limits, so
 * several processes over one Postgres share them exactly. Each store limiter has an in-memory insurance
 * limiter: if the store fails, limiting goes on from memory instead of failing open or failing requests.
 *
 * Besides the three limits of the service description (mcp, sse, tokens) the same table holds the login
 * throttle of the tokens endpoint (login_email, login_address; see login.ts).
 */
import Database from "better-sqlite3";
import type { Knex } from "knex";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../config.js";
import { dialect, sqlitePath } from "../db/knex.js";
import { cacheStatements } from "../db/statement-cache.js";
import { createLoginThrottle, LOGIN_POLICIES, type LoginPolicy } from "./login.js";
import type { LimitDecision, LimitName, RateLimits } from "./types.js";

export const WINDOWS: Record<LimitName, number> = { mcp: 60, sse: 60, tokens: 3600 };

/**
 * The library runs its SQLite upsert (one INSERT … ON CONFLICT DO UPDATE … RETURNING) inside a
 * better-sqlite3 transaction, built anew on every consume: BEGIN, the upsert, COMMIT, and four wrapper
 * functions, 6 % of the CPU of a whoami call. One statement is atomic on its own in autocommit mode (SQLite
 * undoes a failed statement's changes whatever the mode), so it runs alone: the same counts, one statement
 * instead of three. The method is the library's own hook for better-sqlite3 (rate-limiter-flexible 11.4);
 * test/limits/limiter-store.test.ts fails if a new version stops calling it.
 */
export class RateLimiterSQLiteAutocommit extends RateLimiterSQLite {
  async _upsertTransactionBetterSQLite3(conn: Database.Database, upsertQuery: string, upsertParams: unknown[]): Promise<unknown> {
    return conn.prepare(upsertQuery).get(...upsertParams);
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
  // better-sqlite3 through knex returns BigInt integers (see src/db/knex.ts), which the library's
  // arithmetic cannot take; it gets its own plain connection to the same file instead.
  let sqlite: Database.Database | undefined;
  if (dialect(db) === "sqlite") {
    const path = sqlitePath(config.databaseUrl);
    // The store prepares its upsert on every consume; the cache compiles it once.
    sqlite = cacheStatements(new Database(path));
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 5000");
    if (path === ":memory:") sqlite.exec("CREATE TABLE IF NOT EXISTS rate_limits (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)");
  }

  const make = (spec: LimiterSpec): RateLimiterAbstract => {
    const common = { ...spec, tableName: "rate_limits", tableCreated: true };
    // The insurance limiter counts in this process's memory while the store fails: each process then
    // allows up to the full limit on its own, which is still a limit (neither fail-open nor 500s).
    const insuranceLimiter = new RateLimiterMemory({ ...spec, keyPrefix: `${spec.keyPrefix}_insurance` });
    return sqlite
      ? new RateLimiterSQLiteAutocommit({ ...common, storeClient: sqlite, storeType: "better-sqlite3", insuranceLimiter })
      : new RateLimiterPostgres({ ...common, storeClient: db, storeType: "knex", insuranceLimiter });
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
      sqlite?.close();
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
