/** Random strings and hashes for OAuth's short secrets (codes, refresh tokens, request ids). */
import { createHmac, createHash, randomBytes } from "node:crypto";

/** `bytes` random bytes, base64url (no padding): 32 bytes make 43 characters, 256 bits. */
export function randomString(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

/** Codes and refresh tokens are stored as this hash only; keyed with TOKEN_PEPPER when set, like MCP tokens. */
export function secretHash(secret: string, pepper: string): string {
  return pepper ? createHmac("sha256", pepper).update(secret).digest("hex") : createHash("sha256").update(secret).digest("hex");
}
