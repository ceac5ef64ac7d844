/**
 * The per-token and per-user limits, on rate-limiter-flexible (a well-kept library with Postgres and
 * SQLite stores) rather than a hand-written counter. Counters live in the database table rate_limits, so
 * several processes over one Postgres share them exactly. Each store limiter has an in-memory insurance
 * limiter: if the store fails, limiting goes on from memory instead of failing open or failing requests.
 *
 * Besides the three limits of the service description (mcp, sse, tokens) the same table holds the login
 * throttle of the tokens endpoint (login_pair, login_email, login_address; see login.ts).
 *
 * With REDIS_URL set, the per-token and per-user limits (mcp, sse, tokens) live in Redis instead
 * (RateLimiterRedis: one Lua script, INCRBY with its expiry, atomic and exact across processes): a call
 * then makes no database write for its limit, which on Postgres waited for a WAL flush. Redis gets no
 * insurance limiter: while it is unreachable these limits answer `unavailable` (503 with Retry-After),
 * as a database outage is answered, never an unlimited pass nor a count of one process alone. The
 * per-address limits (sign-in, OAuth) stay in the database: they are off the hot path.
 *
 * On SQLite the counters are written through knex's own connection, taken from its pool like any query.
 * A second connection to the file (what this used before) had two costs: its write invalidated the knex
 * connection's page cache on every call, and while a knex write transaction was open its upsert waited for
 * SQLite's write lock in the busy handler, which sleeps on the event loop: the transaction could not go on
 * and the whole process stood still for busy_timeout (5 s) before the insurance limiter answered.
 */
import type { Knex } from "knex";
import { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { unavailable } from "../errors.js";
import type { Config } from "../config.js";
import { databaseLimiter } from "../db/rate-limit-store.js";
import { createLoginThrottle, LOGIN_POLICIES, type LoginPolicies } from "./login.js";
import type { LimitDecision, LimitName, RateLimits } from "./types.js";

export const WINDOWS: Record<LimitName, number> = { mcp: 60, sse: 60, tokens: 3600, oauth: 3600 };

interface LimiterSpec {
  keyPrefix: string;
  points: number;
  duration: number;
  blockDuration?: number;
}

export interface RateLimitOptions {
  /** Overrides of the login throttle's numbers (tests). */
  loginPolicies?: LoginPolicies;
}

/** How long a limit waits for Redis before it answers `unavailable`. */
export const REDIS_TIMEOUT_MS = 1000;

/** A Redis client that never queues a command while disconnected: a call is answered now, or refused. */
export function createRedisClient(url: string): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_TIMEOUT_MS,
    connectTimeout: REDIS_TIMEOUT_MS,
    // The limit checks of concurrent calls leave in one write to Redis (one syscall, one packet) instead of
    // one each; every check is still its own atomic script, so the counts stay exact
    // (docs/decisions.md#redis-auto-pipelining).
    enableAutoPipelining: true,
    // Reconnect for ever, backing off to 2 s: limits come back with Redis.
    retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
  });
  client.on("error", () => undefined); // reported per call as `unavailable`; ioredis would print it
  return client;
}

const REDIS_LIMITS: readonly LimitName[] = ["mcp", "sse", "tokens"];

/**
 * The per-address OAuth limit (registrations and authorization requests, which need no credentials and
 * may make the server fetch a URL) has no insurance limiter: a memory count that starts at 0 when the
 * store fails under load let a 61st registration of an hour through. While the store fails these
 * requests answer `unavailable` (503, Retry-After) instead; they are off the hot path.
 */
const UNINSURED: LimitName = "oauth";

export function createRateLimits(db: Knex, config: Config, options: RateLimitOptions = {}): RateLimits {
  const points: Record<LimitName, number> = {
    mcp: config.rateLimits.mcpPerMinute,
    sse: config.rateLimits.ssePerMinute,
    tokens: config.rateLimits.tokensPerHour,
    oauth: config.rateLimits.oauthPerHour,
  };
  const make = (spec: LimiterSpec, insured = true): RateLimiterAbstract => {
    const common = { ...spec, tableName: "rate_limits", tableCreated: true };
    // The insurance limiter counts in this process's memory while the store fails: each process then
    // allows up to the full limit on its own, which is still a limit (neither fail-open nor 500s).
    const insuranceLimiter = insured ? new RateLimiterMemory({ ...spec, keyPrefix: `${spec.keyPrefix}_insurance` }) : undefined;
    return databaseLimiter(db, { ...common, insuranceLimiter });
  };

  const redis = config.redisUrl ? createRedisClient(config.redisUrl) : undefined;
  const limiters = new Map<LimitName, RateLimiterAbstract>();
  for (const name of Object.keys(WINDOWS) as LimitName[]) {
    const spec = { keyPrefix: name, points: points[name], duration: WINDOWS[name] };
    limiters.set(
      name,
      redis && REDIS_LIMITS.includes(name)
        ? new RateLimiterRedis({ ...spec, keyPrefix: `fmcp_${name}`, storeClient: redis, rejectIfRedisNotReady: true })
        : make(spec, UNINSURED !== name),
    );
  }

  const policies = options.loginPolicies ?? LOGIN_POLICIES;
  const login = createLoginThrottle(
    {
      // login_pair, not login_email: the key changed meaning (email and address), so old counts do not carry over.
      email: make({
        keyPrefix: "login_pair",
        points: policies.email.refuseAfter,
        duration: policies.email.windowSeconds,
        blockDuration: policies.email.blockSeconds,
      }),
      // Never refuses: points beyond any count, no block; it only measures the delay.
      account: make({ keyPrefix: "login_email", points: Number.MAX_SAFE_INTEGER, duration: policies.account.windowSeconds }),
      // Refuses only when its policy says so (refuseAfter finite); by default it only measures the delay.
      address: make({
        keyPrefix: "login_address",
        points: Number.isFinite(policies.address.refuseAfter) ? policies.address.refuseAfter : Number.MAX_SAFE_INTEGER,
        duration: policies.address.windowSeconds,
        blockDuration: policies.address.blockSeconds,
      }),
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
        if (redis && REDIS_LIMITS.includes(name)) throw unavailable(1, "The rate limiter's store (Redis) is unreachable and this call could not be counted.");
        if (name === UNINSURED) throw unavailable(5, "The rate limiter's store is unavailable and this request could not be counted.");
        throw rejection;
      }
    },
    login,
    async ready() {
      if (!redis || redis.status === "ready") return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off("ready", done);
          resolve();
        };
        const timer = setTimeout(done, 2000); // start anyway: the limits answer `unavailable` until it is up
        redis.once("ready", done);
      });
    },
    async close() {
      // The database counters use the service's knex connections; Redis has its own.
      if (redis) redis.disconnect();
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
