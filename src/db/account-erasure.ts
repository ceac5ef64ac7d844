/**
 * Postgres keeps the audit log append-only with a trigger (migrations 202611210001 and 20261125120000):
 * only a transaction that names the person being deleted, in the transaction-local setting
 * finance_mcp.erase_user, may delete that person's entries, and nothing else. SQLite has no such trigger.
 */
import type { Knex } from "knex";
import { dialect } from "./knex.js";

/** Lets this transaction delete the audit entries of `userId` (until it ends). */
export async function allowAuditErasure(trx: Knex.Transaction, userId: string): Promise<void> {
  if (dialect(trx) !== "postgres") return;
  await trx.raw("SELECT set_config('finance_mcp.erase_user', ?, true)", [userId]);
}
