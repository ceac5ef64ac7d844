/**
 * The key that signs session cookies and CSRF fields: SESSION_SECRET when set, otherwise a random key the
 * server generated at its first start and keeps in server_secrets, so that every process over one Postgres
 * signs and checks with the same key. It is never derived from another setting: TOKEN_PEPPER is empty by
 * default, and a key derived from an empty setting is a public constant (docs/decisions.md#web-session-key).
 *
 * Two processes starting at once both try to insert; the loser's insert does nothing and both read the
 * winner's row. Changing SESSION_SECRET, or deleting the row while SESSION_SECRET is unset, changes the key
 * and so signs everyone out (every cookie's signature stops matching).
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { storedSecret } from "../db/server-secret.js";

const NAME = "web";

/** The 32-byte key of the web pages (cookies and CSRF). */
export async function webKey(db: Knex, config: Config, now = new Date()): Promise<Buffer> {
  // Hashed so that a SESSION_SECRET of any length and alphabet becomes one 32-byte key.
  if (config.sessionSecret) return createHash("sha256").update(`finance-mcp web ${config.sessionSecret}`).digest();
  return storedSecret(db, NAME, now);
}
