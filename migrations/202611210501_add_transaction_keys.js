/**
 * The ledger's lookup keys and the indexes of list_transactions (docs/ledger.md explains each plan).
 *
 * - category_key / payee_key: the category and payee folded to lower case in JavaScript (the same folding
 *   on both engines; SQLite's lower() only folds ASCII). Category filters and the category/payee groups
 *   of get_transaction_summary compare these, so "Groceries" and "groceries" are one category.
 * - Every index a page is read through ends in id, the tie-breaker of the keyset cursor, so a page is an
 *   index range read in order and never a sort of the user's whole history:
 *     (user_id, date, id)                 exists: date order, date ranges
 *     (user_id, wallet_id, date, id, amount_minor)
 *                                         replaces (user_id, wallet_id, date); amount_minor last makes it
 *                                         covering for the balance SUM (an index-only read per wallet)
 *     (user_id, category_key, date, id)   replaces (user_id, category, date)
 *     (user_id, abs(amount_minor), id)    new: amount order, min/max magnitude
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("transactions", (t) => {
    t.string("category_key", 255);
    t.string("payee_key", 255);
  });
  await knex.raw("UPDATE transactions SET category_key = lower(category), payee_key = lower(payee)");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_wallet_date");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_category_date");
  await knex.raw("CREATE INDEX transactions_user_wallet_date_id ON transactions (user_id, wallet_id, date, id, amount_minor)");
  await knex.raw("CREATE INDEX transactions_user_category_key_date_id ON transactions (user_id, category_key, date, id)");
  await knex.raw("CREATE INDEX transactions_user_magnitude_id ON transactions (user_id, abs(amount_minor), id)");
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw("DROP INDEX IF EXISTS transactions_user_magnitude_id");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_category_key_date_id");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_wallet_date_id");
  await knex.raw("CREATE INDEX transactions_user_wallet_date ON transactions (user_id, wallet_id, date)");
  await knex.raw("CREATE INDEX transactions_user_category_date ON transactions (user_id, category, date)");
  // Plain ALTER TABLE ... DROP COLUMN on both engines (SQLite >= 3.35): no table rebuild, foreign keys untouched.
  await knex.raw("ALTER TABLE transactions DROP COLUMN payee_key");
  await knex.raw("ALTER TABLE transactions DROP COLUMN category_key");
}
