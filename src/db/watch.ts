/**
 * What this process's requests hold and wait for in the database, for /metrics and for the log line an
 * operator reads when a request reached a bound (src/db/knex.ts#RequestBounds): the pool's connections
 * in use, free and waited for; the writes waiting for their user's lock and holding it (a write holds it
 * until its transaction ends), with the age of the oldest holder; how often each bound was reached.
 * Kept in the process, so a scrape costs no connection: /metrics still answers when the pool is dry.
 */
import type { Knex } from "knex";
import { boundReached, type BoundKind } from "./errors.js";

export interface PoolStats {
  used: number;
  free: number;
  pending: number;
}

/** knex's pool (tarn) as it stands; zeros before its first connection. */
export function poolStats(db: Knex): PoolStats {
  const pool = db.client.pool as { numUsed(): number; numFree(): number; numPendingAcquires(): number } | undefined;
  if (!pool) return { used: 0, free: 0, pending: 0 };
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
}

export interface WriteLockStats {
  /** Writes whose transaction has begun and that wait for their user's lock. */
  waiting: number;
  /** Writes that hold it (their transaction has not ended yet). */
  holding: number;
  /** How long the oldest holder has held it, in milliseconds (0 when none does). */
  oldestHeldMs: number;
}

export interface DbWatch {
  /** A write begins to wait for its user's lock; the answer is called once it has the lock, then once its transaction ended. */
  lockWait(): { acquired(): void; released(): void };
  writeLocks(): WriteLockStats;
  /** Counts the bound this failure reached, if any, and answers which. */
  noteFailure(err: unknown): BoundKind | undefined;
  boundsReached(): Record<BoundKind, number>;
}

export function createDbWatch(now: () => number = () => performance.now()): DbWatch {
  let waiting = 0;
  // Start times of the current holders, oldest first (Set keeps insertion order).
  const holders = new Set<{ since: number }>();
  const reached: Record<BoundKind, number> = { pool: 0, lock: 0, statement: 0, idle_transaction: 0 };
  return {
    lockWait() {
      waiting++;
      let state: "waiting" | "holding" | "done" = "waiting";
      const holder = { since: 0 };
      return {
        acquired() {
          if (state !== "waiting") return;
          state = "holding";
          waiting--;
          holder.since = now();
          holders.add(holder);
        },
        released() {
          if (state === "waiting") waiting--;
          else if (state === "holding") holders.delete(holder);
          state = "done";
        },
      };
    },
    writeLocks() {
      const oldest = holders.values().next().value as { since: number } | undefined;
      return { waiting, holding: holders.size, oldestHeldMs: oldest ? Math.round(now() - oldest.since) : 0 };
    },
    noteFailure(err) {
      const kind = boundReached(err);
      if (kind) reached[kind]++;
      return kind;
    },
    boundsReached: () => ({ ...reached }),
  };
}
