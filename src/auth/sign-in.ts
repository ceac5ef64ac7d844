/**
 * Email and password, checked the one way for every place that accepts them (HTTP Basic on the tokens
 * endpoint, the sign-in form of the web pages): throttled per email, per email and address and per
 * address before the password is checked (src/limits/login.ts); an unknown email is verified against a
 * dummy hash so that it costs the same time as a wrong password.
 */
import type { Knex } from "knex";
import { AppError } from "../errors.js";
import type { RateLimits } from "../limits/types.js";
import { dummyPasswordHash, verifyPassword } from "./passwords.js";
import { findUserByEmail, MAX_PASSWORD, type User } from "./users.js";

const MAX_EMAIL = 320;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The user, or AppError unauthorized (wrong email or password; `wrong` says it) / rate_limited. `device`:
 * the nonce of a valid device cookie for this email (src/auth/device-cookie.ts), when a browser sent one.
 */
export async function signIn(
  db: Knex,
  limits: RateLimits,
  email: string,
  password: string,
  address: string,
  wrong: () => AppError,
  device?: string,
): Promise<User> {
  if (email.length === 0 || email.length > MAX_EMAIL || password.length > MAX_PASSWORD) throw wrong();
  const verdict = await limits.login.attempt(email, address, device);
  if (verdict.refused) {
    throw new AppError("rate_limited", `Too many failed logins for this account or from this address. Wait ${verdict.retryAfterSeconds} seconds, then retry.`, {
      retry_after_seconds: verdict.retryAfterSeconds,
    });
  }
  if (verdict.delayMs > 0) await sleep(verdict.delayMs);
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()));
  if (!user || !ok) throw wrong();
  await limits.login.succeeded(email, address, device);
  const { password_hash: _hash, ...rest } = user;
  return rest;
}
