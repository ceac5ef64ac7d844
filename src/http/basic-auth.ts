/**
 * HTTP Basic (email and password) for the tokens endpoint: the only place a password is accepted.
 * Throttled per email and per client address before the password is checked (src/limits/login.ts); an
 * unknown email is verified against a dummy hash so that it costs the same time as a wrong password.
 */
import type { Request } from "express";
import type { Knex } from "knex";
import { dummyPasswordHash, verifyPassword } from "../auth/passwords.js";
import { findUserByEmail, type User } from "../auth/users.js";
import { AppError } from "../errors.js";
import type { RateLimits } from "../limits/types.js";

export const BASIC_CHALLENGE = 'Basic realm="finance-mcp", charset="UTF-8"';

const MAX_EMAIL = 320;
const MAX_PASSWORD = 1024;

export function parseBasic(header: string | undefined): { email: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const wrongCredentials = () =>
  new AppError("unauthorized", "Wrong email or password. Authenticate with HTTP Basic: the account's email as user name and its password.");

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The user named by the Basic credentials, or unauthorized (401) / rate_limited (429). */
export async function authenticateBasic(db: Knex, limits: RateLimits, req: Request): Promise<User> {
  const credentials = parseBasic(req.headers.authorization);
  if (!credentials || credentials.email.length > MAX_EMAIL || credentials.password.length > MAX_PASSWORD) throw wrongCredentials();
  const address = req.ip ?? req.socket.remoteAddress ?? "unknown";
  const verdict = await limits.login.attempt(credentials.email, address);
  if (verdict.refused) {
    throw new AppError("rate_limited", `Too many failed logins for this account or from this address. Wait ${verdict.retryAfterSeconds} seconds, then retry.`, {
      retry_after_seconds: verdict.retryAfterSeconds,
    });
  }
  if (verdict.delayMs > 0) await sleep(verdict.delayMs);
  const user = await findUserByEmail(db, credentials.email);
  const ok = await verifyPassword(credentials.password, user?.password_hash ?? (await dummyPasswordHash()));
  if (!user || !ok) throw wrongCredentials();
  await limits.login.succeeded(credentials.email, address);
  const { password_hash: _hash, ...rest } = user;
  return rest;
}
