/**
 * Verified tokens kept in the process for a short time, keyed by the token's hash, so that a call on
 * Postgres makes no round trip to authenticate (docs/decisions.md, "Tokens cached, revocation notified").
 *
 * What keeps it honest:
 *   - every change of a token or of what it carries of its user (revoked, expiry or scopes changed,
 *     deleted; time zone, currency) is NOTIFYed by a trigger on commit (migration 20261125160000), and the
 *     change bus's LISTEN session drops that user's entries in every process;
 *   - while that session is down the cache is bypassed, and nothing learnt before a loss or a restart of
 *     the session is used after it (the bus's epoch);
 *   - a lookup that raced a notification is not stored (the generation counter);
 *   - a change made by this process empties the cache as its statement starts (knex's query event), so
 *     a revocation answered here is refused by the next call here without waiting for its NOTIFY;
 *   - the expiry is checked on every hit, and an entry lives at most TOKEN_CACHE_TTL_MS anyway.
 * A revocation reaches another process in the time its NOTIFY takes (well under a millisecond to a few
 * milliseconds on one network), not after the TTL.
 *
 * SQLite runs one server process per file and its lookup is in-process (7–14 µs): no cache there.
 */
import type { Knex } from "knex";
import type { ChangeBus } from "../events/bus.js";

export const TOKEN_CACHE_TTL_MS = 60_000;
export const TOKEN_CACHE_MAX = 10_000;

/** The columns of a verified token row (src/auth/tokens.ts findTokenByHash). */
export type TokenRow = Record<string, unknown>;

interface Entry {
  row: TokenRow;
  userId: string;
  storedAt: number;
  epoch: number;
}

export interface TokenCache {
  get(hash: string, nowMs: number): TokenRow | undefined;
  /** Before a lookup: the value to hand to set, so a lookup that raced a change is not stored. */
  generation(): number;
  set(hash: string, row: TokenRow, generation: number, nowMs: number): void;
  /** last_used_at as written by this process (so a hit knows when the next write is due). */
  touch(hash: string, lastUsedAt: string): void;
  stats(): { size: number; hits: number; misses: number; invalidations: number };
  close(): void;
}

/** A statement of this process that may change a token or what it carries of its user. */
const TOUCHES_TOKENS = /^\s*(update|delete\s+from)\s+"?(mcp_tokens|users)"?\s/i;
/** The once-a-minute last_used_at write of src/auth/tokens.ts: changes nothing a token may do. */
const LAST_USED_ONLY = /^\s*update\s+"mcp_tokens"\s+set\s+"last_used_at"\s*=\s*(\?|\$\d+)\s+where/i;

export function createTokenCache(
  bus: Pick<ChangeBus, "listening" | "epoch" | "onTokensChanged">,
  options: { ttlMs?: number; max?: number; db?: Knex } = {},
): TokenCache {
  const ttl = options.ttlMs ?? TOKEN_CACHE_TTL_MS;
  const max = options.max ?? TOKEN_CACHE_MAX;
  const entries = new Map<string, Entry>();
  const byUser = new Map<string, Set<string>>();
  let generation = 0;
  let hits = 0;
  let misses = 0;
  let invalidations = 0;

  const drop = (hash: string) => {
    const e = entries.get(hash);
    if (!e) return;
    entries.delete(hash);
    const set = byUser.get(e.userId);
    set?.delete(hash);
    if (set && set.size === 0) byUser.delete(e.userId);
  };

  const offBus = bus.onTokensChanged((userId) => {
    generation++;
    invalidations++;
    for (const hash of [...(byUser.get(userId) ?? [])]) drop(hash);
  });
  const onQuery = (q: { sql?: unknown }) => {
    if (typeof q.sql !== "string" || !TOUCHES_TOKENS.test(q.sql) || LAST_USED_ONLY.test(q.sql)) return;
    generation++;
    entries.clear();
    byUser.clear();
  };
  options.db?.on("query", onQuery);
  const off = () => {
    offBus();
    options.db?.off("query", onQuery);
  };

  return {
    get(hash, nowMs) {
      if (!bus.listening()) return undefined;
      const e = entries.get(hash);
      if (!e || e.epoch !== bus.epoch() || nowMs - e.storedAt >= ttl) {
        if (e) drop(hash);
        misses++;
        return undefined;
      }
      hits++;
      return e.row;
    },
    generation: () => generation,
    set(hash, row, gen, nowMs) {
      if (gen !== generation || !bus.listening()) return;
      drop(hash);
      if (entries.size >= max) drop(entries.keys().next().value as string); // the oldest
      const userId = String(row.user_id);
      entries.set(hash, { row, userId, storedAt: nowMs, epoch: bus.epoch() });
      const set = byUser.get(userId) ?? new Set<string>();
      set.add(hash);
      byUser.set(userId, set);
    },
    touch(hash, lastUsedAt) {
      const e = entries.get(hash);
      if (e) e.row = { ...e.row, last_used_at: lastUsedAt };
    },
    stats: () => ({ size: entries.size, hits, misses, invalidations }),
    close() {
      off();
      entries.clear();
      byUser.clear();
    },
  };
}
