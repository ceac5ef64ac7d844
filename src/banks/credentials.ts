/**
 * An Access URL sealed at rest with AES-256-GCM (node:crypto). The key is BANK_CREDENTIALS_KEY when set
 * (then a copy of the database, a backup included, holds nothing that opens it), else a random key the
 * server keeps in server_secrets (src/db/server-secret.ts; a database backup then holds the key beside
 * the sealed URL: docs/history/bank-connections.md says to set the variable). The sealed text names its key by a short id,
 * so a rotation is: set the new key, move the old one to BANK_CREDENTIALS_PREVIOUS_KEYS; each connection
 * is sealed again with the new key at its next sync, after which the old key can go.
 * The connection's id and owner are the cipher's associated data: a sealed URL copied onto another row
 * does not open.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { rememberedSecret } from "../db/server-secret.js";

export interface SealingKeys {
  /** Seals new text. */
  current: { id: string; key: Buffer };
  /** Opens text sealed by any of these (the current one included). */
  byId: Map<string, Buffer>;
}

const keyId = (key: Buffer) => createHash("sha256").update("finance-mcp bank credentials ").update(key).digest("hex").slice(0, 12);

/** The keys from the configuration, or the database's remembered one. */
export async function sealingKeys(db: Knex, config: Config): Promise<SealingKeys> {
  const configured = config.banks.credentialsKey;
  const current = configured ? Buffer.from(configured, "base64") : await rememberedSecret(db, "bank_credentials");
  const byId = new Map<string, Buffer>([[keyId(current), current]]);
  for (const k of config.banks.previousKeys) byId.set(keyId(Buffer.from(k, "base64")), Buffer.from(k, "base64"));
  // The remembered key keeps opening what it sealed once a configured key replaces it.
  if (configured) byId.set(...((k: Buffer) => [keyId(k), k] as const)(await rememberedSecret(db, "bank_credentials")));
  return { current: { id: keyId(current), key: current }, byId };
}

/** "v1.<key id>.<iv>.<tag>.<ciphertext>", base64url parts. */
export function seal(keys: SealingKeys, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keys.current.key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", keys.current.id, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

export class UnsealError extends Error {}

/** The sealed text opened, or UnsealError (its key is gone, or it was altered or moved to another row). */
export function unseal(keys: SealingKeys, sealed: string, context: string): string {
  const [version, id, iv, tag, body] = sealed.split(".");
  const key = id === undefined ? undefined : keys.byId.get(id);
  if (version !== "v1" || key === undefined || iv === undefined || tag === undefined || body === undefined)
    throw new UnsealError("the stored bank credentials were sealed with a key this server no longer has (BANK_CREDENTIALS_PREVIOUS_KEYS)");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new UnsealError("the stored bank credentials do not open: they were altered");
  }
}

/** Whether sealed text is under the current key (else the next sync seals it again). */
export const sealedWithCurrent = (keys: SealingKeys, sealed: string): boolean => sealed.split(".")[1] === keys.current.id;
