/**
 * HTTP Basic (email and password) for the tokens endpoint. The check itself, throttled, is
 * src/auth/sign-in.ts, shared with the sign-in form of the web pages (src/web).
 */
import type { Request } from "express";
import type { Knex } from "knex";
import { signIn } from "../auth/sign-in.js";
import type { User } from "../auth/users.js";
import { AppError } from "../errors.js";
import type { RateLimits } from "../limits/types.js";

export const BASIC_CHALLENGE = 'Basic realm="finance-mcp", charset="UTF-8"';

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

/** The user named by the Basic credentials, or unauthorized (401) / rate_limited (429). */
export async function authenticateBasic(db: Knex, limits: RateLimits, req: Request): Promise<User> {
  const credentials = parseBasic(req.headers.authorization);
  if (!credentials) throw wrongCredentials();
  return signIn(db, limits, credentials.email, credentials.password, req.ip ?? req.socket.remoteAddress ?? "unknown", wrongCredentials);
}
