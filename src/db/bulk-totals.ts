/**
 * An import into an empty account, its totals built after its rows rather than row by row. On Postgres
 * the import's transaction switches the per-row INSERT triggers of the totals off (SET LOCAL
 * finance_mcp.bulk = 'on'; migrations/20261125040100_import_skips_row_totals.js), and the imported
 * user's totals are then built in three set-based statements, the same sums the triggers would have kept
 * (and the migrations' backfills compute). The account was empty, so the user has no total to replace.
 * On SQLite the triggers run in the process, each a few microseconds with no round trip, and they keep
 * the totals as the rows go in: nothing to switch off or rebuild.
 */
import type { Knex } from "knex";
import { dialect } from "./knex.js";

/** Switches the row triggers of the totals off for the rest of the transaction (Postgres; SQLite: nothing). */
export async function switchRowTotalsOff(trx: Knex.Transaction): Promise<void> {
  if (dialect(trx) !== "postgres") return;
  await trx.raw("SET LOCAL finance_mcp.bulk = 'on'");
}

/** The user's totals after switchRowTotalsOff (Postgres; SQLite: kept by the triggers already). */
export async function rebuildTotals(trx: Knex.Transaction, userId: string): Promise<void> {
  if (dialect(trx) !== "postgres") return;
  // tags_key first: the expense totals are keyed by it. The same aggregate as the tag trigger's, built
  // once for the user and joined, and only rows whose key differs are written (none, unless the
  // database's collation orders tags otherwise than JavaScript did): rewriting every row, as a correlated
  // UPDATE of all tagged rows did, cost 39 s for 30,000 transactions (docs/history/perf-import.md).
  await trx.raw(
    `UPDATE transactions t SET tags_key = k.tags_key
       FROM (SELECT transaction_id, json_agg(tag ORDER BY tag)::text AS tags_key FROM transaction_tags
              WHERE user_id = ? GROUP BY transaction_id) k
      WHERE t.id = k.transaction_id AND t.user_id = ? AND t.tags_key IS DISTINCT FROM k.tags_key`,
    [userId, userId],
  );
  // Should that update have moved a total (a collation ordering tags otherwise than JavaScript did), the
  // user's totals start again from nothing.
  await trx("expense_day_totals").where({ user_id: userId }).delete();
  await trx("wallet_month_totals").where({ user_id: userId }).delete();
  await trx.raw(
    `INSERT INTO wallet_month_totals (user_id, wallet_id, month, total_minor)
       SELECT user_id, wallet_id, substr(date, 1, 7), SUM(amount_minor) FROM transactions WHERE user_id = ?
        GROUP BY user_id, wallet_id, substr(date, 1, 7) HAVING SUM(amount_minor) <> 0`,
    [userId],
  );
  await trx.raw(
    `INSERT INTO expense_day_totals (user_id, date, currency, wallet_id, category_key, tags_key, total_minor, row_count)
       SELECT user_id, date, currency, wallet_id, COALESCE(category_key, ''), tags_key, SUM(amount_minor), COUNT(*)
         FROM transactions WHERE user_id = ? AND direction = 'expense'
        GROUP BY user_id, date, currency, wallet_id, COALESCE(category_key, ''), tags_key`,
    [userId],
  );
}
