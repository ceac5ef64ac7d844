/**
 * Helpers for the tokens endpoint tests: HTTP Basic requests, and users whose password hash uses cheap
 * scrypt parameters (verifyPassword reads N, r, p from the stored hash), so that tests can log in many
 * times without paying OWASP's ~0.5 s per attempt. One user per suite is created with the real
 * createUser to exercise the real parameters.
 */
import { randomBytes, scryptSync } from "node:crypto";
import type { Knex } from "knex";
import { newId } from "../../src/db/ids.js";

export function cheapHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function insertLoginUser(
  db: Knex,
  password: string,
  email = `${newId("usr").toLowerCase()}@example.test`,
): Promise<{ id: string; email: string; password: string }> {
  const id = newId("usr");
  const at = new Date().toISOString();
  await db("users").insert({
    id,
    email,
    email_normalized: email.toLowerCase(),
    password_hash: cheapHash(password),
    timezone: "UTC",
    default_currency: "USD",
    created_at: at,
    updated_at: at,
  });
  return { id, email, password };
}

export const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString("base64")}`;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function tokensApi(
  baseUrl: string,
  method: "GET" | "POST" | "DELETE",
  options: { auth?: { email: string; password: string } | string; body?: unknown; path?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const auth = typeof options.auth === "string" ? options.auth : options.auth ? basic(options.auth.email, options.auth.password) : undefined;
  const res = await fetch(`${baseUrl}/api/v1/mcp-tokens${options.path ?? ""}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(auth ? { authorization: auth } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
