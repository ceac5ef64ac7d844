/**
 * The locks that order a user's writes, in each engine's own terms (docs/decisions.md#engine-facts-in-src-db).
 */
import type { Knex } from "knex";
import { dialect } from "./knex.js";

/**
 * The lock every write of the user takes, until the transaction ends (the write pipeline's, and an
 * account's deletion, so no write of the person runs beside it). Postgres: a transaction-scoped advisory
 * lock per user, since writers run concurrently. SQLite: nothing; its transactions are serial already.
 */
export async function lockUserWrites(trx: Knex.Transaction, userId: string): Promise<void> {
  if (dialect(trx) !== "postgres") return;
  await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [`user:${userId}`]);
}

/**
 * Takes the user's row lock now, so that a count of the user's rows and the insert after it cannot
 * interleave with another transaction doing the same on any process (a token's quota). Postgres: the
 * users row FOR UPDATE. SQLite: a no-op update of that row, which takes the file's write lock at once
 * (a deferred transaction would otherwise take it only at its first write, after the count).
 */
export async function lockUserRow(trx: Knex.Transaction, userId: string): Promise<void> {
  if (dialect(trx) === "postgres") await trx("users").where({ id: userId }).forUpdate().first("id");
  else
    await trx("users")
      .where({ id: userId })
      .update({ updated_at: trx.ref("updated_at") });
}
