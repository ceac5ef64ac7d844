/**
 * The first run (issue 52 item 6): a server with no user yet offers, at `/`, to create its owner account,
 * guarded by a one-time setup code that the server prints to its log at start (src/main.ts), so that only
 * the person who can read the server's log (its operator) can take it, not a stranger on the network.
 *
 * The code is kept in server_secrets ("setup_code"), so every process over one database prints and accepts
 * the same one; it is deleted when the owner is created (or at a start that finds a user), after which the
 * offer is gone. 16 characters of Crockford base32 (80 bits): guessing is hopeless without any limit.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { createUser, type User } from "./users.js";

const NAME = "setup_code";
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function newCode(): string {
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => ALPHABET[b % 32]).join("");
  return chars.match(/.{4}/g)!.join("-");
}

/** The code as typed: case, spaces and dashes do not matter; O and I/L read as 0 and 1 (Crockford). */
function normalize(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
}

async function hasUser(db: Knex): Promise<boolean> {
  return (await db("users").first("id")) !== undefined;
}

/**
 * At start: the setup code when the server has no user yet (made once per database, shared by its
 * processes), else undefined (and a leftover code is deleted).
 */
export async function setupCodeAtStart(db: Knex, now: Date): Promise<string | undefined> {
  if (await hasUser(db)) {
    await db("server_secrets").where({ name: NAME }).delete();
    return undefined;
  }
  await db("server_secrets").insert({ name: NAME, value: newCode(), created_at: now.toISOString() }).onConflict("name").ignore();
  const row = (await db("server_secrets").where({ name: NAME }).first("value")) as { value: string } | undefined;
  return row?.value;
}

/** Whether the first-run offer stands: no user, and a setup code waiting. */
export async function setupPending(db: Knex): Promise<boolean> {
  return (await db("server_secrets").where({ name: NAME }).first("name")) !== undefined && !(await hasUser(db));
}

export class SetupRefused extends Error {}

/**
 * Creates the owner account when `code` is the setup code and there is still no user; the code is used up
 * in the same transaction, so two tries at once create one owner. Throws SetupRefused (a wrong code, or
 * the offer gone) or the account's own input errors (UserInputError).
 */
export async function createOwner(
  db: Knex,
  code: string,
  input: { email: string; password: string; timezone: string; currency: string },
  now: Date,
): Promise<User> {
  return db.transaction(async (trx) => {
    const row = (await trx("server_secrets").where({ name: NAME }).first("value")) as { value: string } | undefined;
    if (!row || (await hasUser(trx))) throw new SetupRefused("This server has its owner already: sign in instead.");
    const given = Buffer.from(normalize(code));
    const expected = Buffer.from(normalize(row.value));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new SetupRefused("That is not the setup code: copy it from the server's log (the line with setup_code).");
    }
    const user = await createUser(trx, input, now);
    await trx("server_secrets").where({ name: NAME }).delete();
    return user;
  });
}
