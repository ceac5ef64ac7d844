/** Opaque, unguessable, prefixed ids (wal_…, txn_…): 128 random bits in base62, never sequential. */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export type IdPrefix = "usr" | "tok" | "wal" | "txn" | "trf" | "bud" | "gol" | "gct" | "bil" | "req" | "imp" | "rul" | "xrt" | "blk" | "rcd" | "bnk";

/**
 * Where new ids come from: handlers and domain code take one (ctx.ids) instead of calling newId, so a
 * test can inject known ids (sequentialIds) the way it injects the clock.
 */
export interface IdSource {
  next(prefix: IdPrefix): string;
}

export const randomIds: IdSource = { next: (prefix) => newId(prefix) };

/** Deterministic ids for tests: wal_0000000000000001, wal_0000000000000002… (one counter per prefix). */
export function sequentialIds(): IdSource {
  const counters = new Map<IdPrefix, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${String(n).padStart(16, "0")}`;
    },
  };
}

/**
 * The ids a dry run mints (src/writes/pipeline.ts): they are rolled back with everything else, so the
 * preview must not present them as real. Each says so ("txn_provisional…") and is still random, so
 * concurrent dry runs never wait on one another's rows.
 */
export const provisionalIds: IdSource = { next: (prefix) => `${prefix}_provisional${newId(prefix).slice(prefix.length + 1, prefix.length + 12)}` };

export function newId(prefix: IdPrefix): string {
  let n = BigInt(`0x${randomBytes(16).toString("hex")}`);
  let out = "";
  while (out.length < 22) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return `${prefix}_${out}`;
}
