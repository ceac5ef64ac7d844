/** Opaque, unguessable, prefixed ids (wal_…, txn_…): 128 random bits in base62, never sequential. */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export type IdPrefix = "usr" | "tok" | "wal" | "txn" | "trf" | "bud" | "gol" | "gct" | "bil" | "req";

export function newId(prefix: IdPrefix): string {
  let n = BigInt(`0x${randomBytes(16).toString("hex")}`);
  let out = "";
  while (out.length < 22) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return `${prefix}_${out}`;
}
