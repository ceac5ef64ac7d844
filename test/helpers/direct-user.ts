/**
 * A user and a token with every scope, inserted straight into a migrated database: for tests that start
 * server processes of their own (test/helpers/server.ts does the same inside its in-process server).
 */
import type { Knex } from "knex";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { newId } from "../../src/db/ids.js";

export async function insertUserWithToken(
  db: Knex,
  opts: { email?: string; currency?: string; pepper?: string } = {},
): Promise<{ id: string; email: string; token: string }> {
  const id = newId("usr");
  const email = opts.email ?? `${id}@example.test`;
  const at = new Date().toISOString();
  await db("users").insert({
    id,
    email,
    email_normalized: email.toLowerCase(),
    password_hash: "scrypt$test$not-a-password",
    timezone: "UTC",
    default_currency: opts.currency ?? "USD",
    created_at: at,
    updated_at: at,
  });
  const { token } = await createToken(db, id, { name: "test", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, opts.pepper ?? "");
  return { id, email, token };
}

/** POSTs one JSON-RPC call; resolves with the HTTP status and parsed body, rejects on a network error. */
export async function callOver(
  mcpUrl: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
