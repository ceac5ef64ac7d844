/**
 * MCP token format: `fmcp_` + 32 base62 characters (190 bits from the CSPRNG) + 6 base62 characters of
 * CRC-32 checksum. The prefix makes leaked tokens recognisable to secret scanners; the checksum lets the
 * server refuse a mistyped or made-up token before any database lookup.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const TOKEN_PREFIX = "fmcp_";
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECK_LENGTH}}$`);

function base62(n: bigint, length: number): string {
  let out = "";
  while (out.length < length) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

function checksum(body: string): string {
  return base62(BigInt(crc32(body)), CHECK_LENGTH);
}

export function generateToken(): string {
  // 24 random bytes = 192 bits; 32 base62 digits hold 190.5 bits of them.
  const body = base62(BigInt(`0x${randomBytes(24).toString("hex")}`), BODY_LENGTH);
  return `${TOKEN_PREFIX}${body}${checksum(body)}`;
}

/** Shape and checksum only: no database involved. */
export function isWellFormedToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY_LENGTH);
  return checksum(body) === token.slice(TOKEN_PREFIX.length + BODY_LENGTH);
}

/** Only this hash is stored. With TOKEN_PEPPER set it is an HMAC, so a stolen table alone is useless. */
export function hashToken(token: string, pepper: string): string {
  return pepper ? createHmac("sha256", pepper).update(token).digest("hex") : createHash("sha256").update(token).digest("hex");
}
