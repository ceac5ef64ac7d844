/** Users: created by the CLI, authenticated by email and password on the tokens endpoint. */
import type { Knex } from "knex";
import { randomIds, type IdSource } from "../db/ids.js";
import { isKnownCurrency } from "../money/currencies.js";
import { hashPassword } from "./passwords.js";
import { isValidTimeZone } from "../calendar/time-zones.js";

export interface User {
  id: string;
  email: string;
  timezone: string;
  default_currency: string;
  created_at: string;
}

export class UserInputError extends Error {}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Longest password accepted anywhere (sign-in refuses longer ones before hashing: scrypt cost). */
export const MAX_PASSWORD = 1024;

/** Why a new password cannot be used, or undefined: one rule for creating a user and changing a password. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 12) return "password: expected at least 12 characters";
  if (password.length > MAX_PASSWORD) return `password: expected at most ${MAX_PASSWORD} characters`;
  return undefined;
}

export async function createUser(
  db: Knex,
  input: { email: string; password: string; timezone?: string; currency?: string },
  now = new Date(),
  ids: IdSource = randomIds,
): Promise<User> {
  const email = input.email.trim();
  // local@domain with a dot inside the domain, checked as one linear pattern and a look at the domain:
  // /^[^\s@]+@[^\s@]+\.[^\s@]+$/ backtracks on "a@b.b.b…" (issue 41, regexp/no-super-linear-backtracking).
  if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email) || !email.slice(email.indexOf("@") + 2, -1).includes("."))
    throw new UserInputError(`email: expected an email address, got ${JSON.stringify(email)}`);
  const weak = passwordProblem(input.password);
  if (weak) throw new UserInputError(weak);
  const timezone = input.timezone ?? "UTC";
  if (!isValidTimeZone(timezone)) throw new UserInputError(`timezone: expected an IANA time zone such as Europe/Berlin, got ${JSON.stringify(timezone)}`);
  const currency = (input.currency ?? "USD").toUpperCase();
  if (!isKnownCurrency(currency)) throw new UserInputError(`currency: expected an ISO 4217 code such as EUR, got ${JSON.stringify(input.currency)}`);
  const existing = await db("users")
    .where({ email_normalized: normalizeEmail(email) })
    .first("id");
  if (existing) throw new UserInputError(`email: a user with this email already exists`);
  const at = now.toISOString();
  const user = { id: ids.next("usr"), email, timezone, default_currency: currency, created_at: at };
  await db("users").insert({ ...user, email_normalized: normalizeEmail(email), password_hash: await hashPassword(input.password), updated_at: at });
  return user;
}

export async function findUserByEmail(db: Knex, email: string): Promise<(User & { password_hash: string }) | undefined> {
  return db("users")
    .where({ email_normalized: normalizeEmail(email) })
    .first("id", "email", "timezone", "default_currency", "created_at", "password_hash");
}

export async function findUserById(db: Knex, id: string): Promise<User | undefined> {
  return db("users").where({ id }).first("id", "email", "timezone", "default_currency", "created_at");
}
