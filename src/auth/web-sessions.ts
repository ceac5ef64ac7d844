/**
 * Web sessions on the server (table web_sessions): the cookie holds a random id and its HMAC under the web
 * key (src/web/secret.ts); the row holds the id's SHA-256, the user, when the session ends and when it was
 * last used. The server decides: a cookie whose row is gone, idle too long or past its end is refused,
 * whatever the cookie says. Signing out deletes the row (a copied cookie dies with it); signing out
 * everywhere and a password change delete all of a person's rows (docs/decisions.md#web-sessions).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";

/** Idle timeout: a browser left open is signed out after half an hour without a request. */
export const SESSION_IDLE_SECONDS = 30 * 60;
/** Absolute lifetime: sign in again at least every 12 hours (NIST SP 800-63B, AAL2 reauthentication). */
export const SESSION_MAX_SECONDS = 12 * 3600;
/** Sessions kept per person: a new sign-in beyond this ends the least recently used one. */
export const MAX_SESSIONS_PER_USER = 20;
/** last_used_at is written at most this often, so that a page view is not a write every time. */
const TOUCH_EVERY_MS = 60_000;

export interface WebSession {
  userId: string;
  /** The row's key, to end this session. */
  idHash: string;
}

const hashId = (id: string) => createHash("sha256").update(id).digest("hex");
const mac = (key: Buffer, id: string) => createHmac("sha256", key).update(`session\n${id}`).digest("base64url");
const iso = (ms: number) => new Date(ms).toISOString();

/** Starts a session for the user; returns the cookie value (`<random id>.<hmac>`). */
export async function createSession(db: Knex, key: Buffer, userId: string, now: Date): Promise<string> {
  const id = randomBytes(32).toString("base64url");
  const at = now.getTime();
  await db.transaction(async (trx) => {
    // Ended sessions of everyone are swept here, at sign-in, rather than by a timer.
    await trx("web_sessions")
      .where("expires_at", "<=", iso(at))
      .orWhere("last_used_at", "<=", iso(at - SESSION_IDLE_SECONDS * 1000))
      .del();
    await trx("web_sessions").insert({
      id_hash: hashId(id),
      user_id: userId,
      created_at: iso(at),
      expires_at: iso(at + SESSION_MAX_SECONDS * 1000),
      last_used_at: iso(at),
    });
    const beyond = (await trx("web_sessions")
      .where({ user_id: userId })
      .orderBy([
        { column: "last_used_at", order: "desc" },
        { column: "id_hash", order: "asc" },
      ])
      .offset(MAX_SESSIONS_PER_USER)
      .limit(1000)
      .select("id_hash")) as { id_hash: string }[];
    if (beyond.length)
      await trx("web_sessions")
        .whereIn(
          "id_hash",
          beyond.map((r) => r.id_hash),
        )
        .del();
  });
  return `${id}.${mac(key, id)}`;
}

/** The live session a cookie value names, or undefined (malformed, wrong signature, unknown, idle or ended). */
export async function readSession(db: Knex, key: Buffer, cookie: string | undefined, now: Date): Promise<WebSession | undefined> {
  const m = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? "");
  if (!m) return undefined;
  const given = Buffer.from(m[2]!);
  const expected = Buffer.from(mac(key, m[1]!));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const idHash = hashId(m[1]!);
  const row = (await db("web_sessions").where({ id_hash: idHash }).first("user_id", "expires_at", "last_used_at")) as
    { user_id: string; expires_at: string; last_used_at: string } | undefined;
  const at = now.getTime();
  if (!row || Date.parse(row.expires_at) <= at || Date.parse(row.last_used_at) + SESSION_IDLE_SECONDS * 1000 <= at) return undefined;
  if (at - Date.parse(row.last_used_at) >= TOUCH_EVERY_MS)
    await db("web_sessions")
      .where({ id_hash: idHash })
      .update({ last_used_at: iso(at) });
  return { userId: row.user_id, idHash };
}

/** Ends one session (sign-out). */
export async function endSession(db: Knex, idHash: string): Promise<void> {
  await db("web_sessions").where({ id_hash: idHash }).del();
}

/** Ends every session of a person (sign out everywhere, password change); returns how many ended. */
export async function endAllSessions(db: Knex | Knex.Transaction, userId: string): Promise<number> {
  return db("web_sessions").where({ user_id: userId }).del();
}
