/**
 * The indexes an import's planning reads by (issue 41: a call's work grows with its input, not with the
 * wallet's history; docs/history/perf-import-growth.md):
 *   - transactions (user_id, wallet_id, amount_minor, date): the possible-duplicate search reads only the
 *     wallet's transactions of the statement's amounts within its dates (src/domain/imports/import.ts
 *     markPossible), not every transaction of those dates;
 *   - import_keys (transaction_id): which of those candidates an import created, by id, where the primary
 *     key (user_id, wallet_id, key) made each look-up read the wallet's whole ledger. Not led by
 *     (user_id, wallet_id): Postgres without statistics took such an index for the look-up by key too;
 *   - transactions (user_id, payee_key, category, date) of the rows with a category and no transfer: the
 *     category a payee usually gets (src/domain/imports/history.ts) reads that payee's filed rows, not every
 *     row of the person. Partial, so that no other read takes it for its (user_id, payee_key) prefix: a
 *     plain (user_id, payee_key) index was chosen by create_transaction's duplicate probe on Postgres and
 *     read all of a payee's rows (docs/history/perf-import-growth.md).
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw("CREATE INDEX transactions_user_wallet_amount_date ON transactions (user_id, wallet_id, amount_minor, date)");
  await knex.raw("CREATE INDEX import_keys_transaction ON import_keys (transaction_id)");
  await knex.raw(
    "CREATE INDEX transactions_user_payee_key_filed ON transactions (user_id, payee_key, category, date) WHERE category IS NOT NULL AND transfer_id IS NULL",
  );
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw("DROP INDEX IF EXISTS transactions_user_payee_key_filed");
  await knex.raw("DROP INDEX IF EXISTS import_keys_transaction");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_wallet_amount_date");
}
