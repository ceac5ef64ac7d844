/**
 * Counting and deleting every row of one person (the tables come from src/account/tables.ts), for the
 * account page's "Delete my account" (src/web/leave-page.ts). No tool reaches this module: a chatbot can
 * only point the person to the page (test/account/account-deletion.test.ts checks that no tool module
 * imports it).
 *
 * The deletion is one database transaction: the person's write lock and user row first (so no write of
 * theirs runs beside it), then each table's rows children first, a check that nothing of the person is
 * left (a trigger could have written a row into a table already emptied), and the user row last. Any
 * failure rolls everything back. The audit log, append-only otherwise, lets this transaction delete the
 * person's entries only, and the triggers that keep totals skip the rows it deletes anyway
 * (src/db/account-erasure.ts). It writes no audit entry and logs nothing of the person: the audit log
 * it would write to is the one it deletes, and nobody else's log may keep them.
 */
import type { Knex } from "knex";
import { beginAccountErasure } from "../db/account-erasure.js";
import { allowAccountSizedStatements, forUpdate } from "../db/dialect.js";
import { personLimitKeys } from "../limits/account-keys.js";
import { lockUserWrites } from "../db/locks.js";
import { liveAccountTables, rowsOf, USERS_TABLE, type AccountTable } from "./tables.js";

export interface AccountRows {
  table: string;
  /** What the person reads ("transactions"); a table without a rule shows its own name. */
  label: string;
  /** Shown as its own line, or summed into the service's records for the account. */
  shown: boolean;
  rows: number;
}

export class AccountNotFoundError extends Error {}

const describe = (t: AccountTable, rows: number): AccountRows => ({
  table: t.table,
  label: t.rule?.label ?? t.table.replace(/_/g, " "),
  shown: t.rule?.shown ?? true,
  rows,
});

async function countOf(q: Knex.QueryBuilder): Promise<number> {
  const [row] = (await q.count({ n: "*" })) as { n: unknown }[];
  return Number(row?.n ?? 0);
}

/** How many rows of each of the person's tables there are now (what a deletion would remove). */
export async function countAccountRows(db: Knex, userId: string): Promise<AccountRows[]> {
  return db.transaction(async (trx) => {
    const tables = await liveAccountTables(trx);
    const out: AccountRows[] = [];
    for (const t of tables) out.push(describe(t, await countOf(rowsOf(trx, tables, t, userId))));
    return out;
  });
}

/** Deletes the person and every row of theirs in one transaction; answers how many rows each table held. */
export async function deleteAccount(db: Knex, userId: string): Promise<AccountRows[]> {
  return db.transaction(async (trx) => {
    await allowAccountSizedStatements(trx);
    await lockUserWrites(trx, userId);
    const user = (await forUpdate(trx, trx(USERS_TABLE).where({ id: userId }).select("id", "email")).first()) as { id: string; email: string } | undefined;
    if (!user) throw new AccountNotFoundError("no such account");
    // The rate-limit counters keyed by the person's token ids, id or email (not rows of the person's
    // tables: keyed by text, they expire within the hour) go with the account, not an hour later.
    const limitKeys = personLimitKeys(user, await trx("mcp_tokens").where({ user_id: userId }).pluck("id"));
    const tables = await liveAccountTables(trx);
    // Counted before anything goes: a cascade or a trigger may remove rows before their table's own delete.
    const deleted: AccountRows[] = [];
    for (const t of tables) deleted.push(describe(t, await countOf(rowsOf(trx, tables, t, userId))));
    await beginAccountErasure(trx, userId);
    for (const t of tables) await rowsOf(trx, tables, t, userId).del();
    for (const t of tables) {
      const left = await countOf(rowsOf(trx, tables, t, userId));
      if (left > 0) throw new Error(`${t.table} still holds ${left} rows of the account after its deletion: nothing was deleted`);
    }
    for (let i = 0; i < limitKeys.length; i += 500)
      await trx("rate_limits")
        .whereIn("key", limitKeys.slice(i, i + 500))
        .del();
    await trx(USERS_TABLE).where({ id: userId }).del();
    return deleted;
  });
}
