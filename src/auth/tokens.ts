/**
 * MCP tokens: created for a user with a set of scopes, stored as a hash only, checked on every request.
 */
import { timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { newId } from "../db/ids.js";
import { AppError } from "../errors.js";
import { scopes as knownScopes } from "../../generated/registry.js";
import type { Caller } from "../tools/context.js";
import { generateToken, hashToken, isWellFormedToken } from "./token-format.js";

export interface TokenRecord {
  token_id: string;
  user_id: string;
  name: string;
  scopes: string[];
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export const KNOWN_SCOPES: readonly string[] = knownScopes;

export class TokenInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface NewToken {
  name: unknown;
  scopes: unknown;
  expires_in_days?: unknown;
}

/** Checks the body of a token creation; the messages name the field and what it expects. */
export function validateNewToken(body: NewToken): { name: string; scopes: string[]; expiresInDays: number } {
  if (typeof body.name !== "string" || body.name.trim() === "" || body.name.length > 100) {
    throw new TokenInputError("name", "name: expected a non-empty string of at most 100 characters");
  }
  if (!Array.isArray(body.scopes) || body.scopes.length === 0 || !body.scopes.every((s) => typeof s === "string")) {
    throw new TokenInputError("scopes", "scopes: expected a non-empty array of scope names", { valid_scopes: KNOWN_SCOPES });
  }
  const unknown = body.scopes.filter((s) => !KNOWN_SCOPES.includes(s));
  if (unknown.length) {
    throw new TokenInputError("scopes", `scopes: unknown scope(s) ${unknown.join(", ")}; valid scopes are ${KNOWN_SCOPES.join(", ")}`, { valid_scopes: KNOWN_SCOPES });
  }
  const days = body.expires_in_days ?? 90;
  if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > 365) {
    throw new TokenInputError("expires_in_days", "expires_in_days: expected an integer from 1 to 365 (default 90)");
  }
  return { name: body.name.trim(), scopes: [...new Set(body.scopes as string[])].sort(), expiresInDays: days };
}

export async function createToken(
  db: Knex,
  userId: string,
  input: { name: string; scopes: string[]; expiresInDays: number },
  pepper: string,
  now = new Date(),
): Promise<TokenRecord & { token: string }> {
  const token = generateToken();
  const record: TokenRecord = {
    token_id: newId("tok"),
    user_id: userId,
    name: input.name,
    scopes: input.scopes,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + input.expiresInDays * 86_400_000).toISOString(),
    revoked_at: null,
    last_used_at: null,
  };
  await db("mcp_tokens").insert({
    id: record.token_id,
    user_id: userId,
    name: record.name,
    token_hash: hashToken(token, pepper),
    scopes: JSON.stringify(record.scopes),
    created_at: record.created_at,
    expires_at: record.expires_at,
  });
  return { token, ...record };
}

function toRecord(row: Record<string, unknown>): TokenRecord {
  return {
    token_id: String(row.id),
    user_id: String(row.user_id),
    name: String(row.name),
    scopes: JSON.parse(String(row.scopes)) as string[],
    created_at: String(row.created_at),
    expires_at: String(row.expires_at),
    revoked_at: row.revoked_at == null ? null : String(row.revoked_at),
    last_used_at: row.last_used_at == null ? null : String(row.last_used_at),
  };
}

export async function listTokens(db: Knex, userId: string): Promise<TokenRecord[]> {
  const rows = await db("mcp_tokens").where({ user_id: userId }).orderBy("created_at", "desc");
  return rows.map(toRecord);
}

/** Revokes one of the user's tokens; false when the user has no such token (another user's looks the same). */
export async function revokeToken(db: Knex, userId: string, tokenId: string, now = new Date()): Promise<boolean> {
  const n = await db("mcp_tokens").where({ id: tokenId, user_id: userId }).whereNull("revoked_at").update({ revoked_at: now.toISOString() });
  if (n > 0) return true;
  return Boolean(await db("mcp_tokens").where({ id: tokenId, user_id: userId }).first("id"));
}

export const invalidToken = (why: string) =>
  new AppError("unauthorized", `${why} Present a valid MCP token as "Authorization: Bearer <token>"; create one at POST /api/v1/mcp-tokens.`);

const LAST_USED_GRANULARITY_MS = 60_000;

/** Bearer header → Caller, or unauthorized. Malformed tokens never reach the database. */
export async function authenticateBearer(db: Knex, header: string | undefined, pepper: string, now = new Date()): Promise<Caller> {
  if (!header) throw invalidToken("No token was presented.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw invalidToken("The Authorization header is not a Bearer token.");
  const token = match[1]!;
  if (!isWellFormedToken(token)) throw invalidToken("The token is malformed.");
  const hash = hashToken(token, pepper);
  const row = await db("mcp_tokens as t")
    .join("users as u", "u.id", "t.user_id")
    .where("t.token_hash", hash)
    .first("t.id", "t.user_id", "t.name", "t.scopes", "t.expires_at", "t.revoked_at", "t.last_used_at", "t.token_hash", "u.timezone", "u.default_currency");
  // The lookup is by hash; the constant-time compare guards against a database that matched loosely.
  if (!row || !timingSafeEqual(Buffer.from(String(row.token_hash)), Buffer.from(hash))) throw invalidToken("The token is not valid.");
  if (row.revoked_at) throw invalidToken("The token has been revoked.");
  if (String(row.expires_at) <= now.toISOString()) throw invalidToken("The token has expired.");
  const lastUsed = row.last_used_at ? Date.parse(String(row.last_used_at)) : 0;
  if (now.getTime() - lastUsed >= LAST_USED_GRANULARITY_MS) {
    await db("mcp_tokens").where({ id: row.id }).update({ last_used_at: now.toISOString() });
  }
  return {
    userId: String(row.user_id),
    tokenId: String(row.id),
    tokenName: String(row.name),
    scopes: new Set(JSON.parse(String(row.scopes)) as string[]),
    expiresAt: String(row.expires_at),
    timezone: String(row.timezone),
    defaultCurrency: String(row.default_currency),
  };
}
