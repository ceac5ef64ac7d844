/**
 * Postgres keeps the audit log append-only with a trigger (migrations 202611210001 and 20261125120000):
 * only a transaction that names the person being deleted, in the transaction-local setting
 * finance_mcp.erase_user, may delete that person's entries, and nothing else. The same setting makes the
 * DELETE triggers that keep the totals and tags_key skip that person's rows, which the deletion removes
 * anyway. SQLite has no such setting: a row in account_erasure, written inside the deleting transaction
 * (so no one else sees it) and deleted with the person's other rows, makes the same triggers skip the
 * person; its audit log was never append-only.
 */
import type { Knex } from "knex";
import { dialect } from "./knex.js";

/** Lets this transaction delete the audit entries of `userId`, skipping the derived-data triggers (until it ends). */
export async function beginAccountErasure(trx: Knex.Transaction, userId: string): Promise<void> {
  if (dialect(trx) === "postgres") await trx.raw("SELECT set_config('finance_mcp.erase_user', ?, true)", [userId]);
  else await trx("account_erasure").insert({ user_id: userId });
}
