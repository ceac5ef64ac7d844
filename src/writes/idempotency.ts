/**
 * Idempotency keys, scoped to (user, key). A key is claimed inside the write's own transaction, so a
 * failed write claims nothing. The stored response is replayed for the same tool and arguments; other
 * arguments under the same key are refused.
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import { canonicalJson } from "../json.js";
import { AppError } from "../errors.js";

/** Arguments compared after normalisation: key order does not matter; the key and dry_run are not arguments. */
export function requestHash(tool: string, params: Record<string, unknown>): string {
  const { idempotency_key: _k, dry_run: _d, ...args } = params;
  return createHash("sha256")
    .update(`${tool}\n${canonicalJson(args)}`)
    .digest("hex");
}

export interface StoredKey {
  tool: string;
  request_hash: string;
  response_json: string;
}

export async function findKey(db: Knex, userId: string, key: string): Promise<StoredKey | undefined> {
  return db("idempotency_keys").where({ user_id: userId, key }).first("tool", "request_hash", "response_json");
}

/** The answer to a key seen before: the stored response marked replayed, or idempotency_key_reused. */
export function replayOrRefuse(stored: StoredKey, tool: string, hash: string): Record<string, unknown> {
  if (stored.tool !== tool || stored.request_hash !== hash) {
    throw new AppError(
      "idempotency_key_reused",
      `idempotency_key was already used for ${stored.tool === tool ? "other arguments" : `another tool (${stored.tool})`}. Use a new UUIDv4 for a new change; reuse a key only to retry the very same call.`,
      { field: "idempotency_key", expected: "a new UUIDv4 for a new change" },
    );
  }
  return { ...(JSON.parse(stored.response_json) as Record<string, unknown>), status: "replayed" };
}

/** Who claims which key for what call, and for how long it is kept. */
export interface KeyClaim {
  userId: string;
  key: string;
  tool: string;
  hash: string;
  at: Date;
  retentionHours: number;
}

/** The stored key's columns but its response. */
export function keyRowOf(c: KeyClaim) {
  return {
    user_id: c.userId,
    key: c.key,
    tool: c.tool,
    request_hash: c.hash,
    created_at: c.at.toISOString(),
    expires_at: new Date(c.at.getTime() + c.retentionHours * 3_600_000).toISOString(),
  };
}

/**
 * Claims the key with the response to replay. False when the key is already stored (a retry, or another
 * process's call with the same key): the caller rolls back and answers from the stored key. ON CONFLICT
 * DO NOTHING rather than catching the unique violation, so a retry is no error in the database's log.
 * (On Postgres the write pipeline claims it in its closing statement instead: src/writes/bookkeeping.ts.)
 */
export async function storeKey(trx: Knex.Transaction, c: KeyClaim & { response: unknown }): Promise<boolean> {
  const claimed = await trx("idempotency_keys")
    .insert({ ...keyRowOf(c), response_json: JSON.stringify(c.response) })
    .onConflict(["user_id", "key"])
    .ignore()
    .returning("key");
  return claimed.length === 1;
}

export async function purgeExpiredKeys(db: Knex, now: Date): Promise<number> {
  return db("idempotency_keys").where("expires_at", "<", now.toISOString()).delete();
}

export function keyInUse(): AppError {
  return new AppError("idempotency_key_in_use", "A call with this idempotency_key is still running. Wait a second, then retry with the same key.", {
    field: "idempotency_key",
    retry_after_seconds: 1,
  });
}
