/**
 * An index on a user's transactions by payee (case-folded) and date, for list_recurring: finding a
 * user's payees is a walk over the index's distinct keys, and each payee's latest charges are the top
 * of its range, so detecting recurring charges reads a few rows per payee, never the whole history
 * (src/domain/recurring/store.ts). lower() is the same expression in both engines' queries and index.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw("CREATE INDEX transactions_user_payee_date ON transactions (user_id, lower(payee), date)");
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw("DROP INDEX IF EXISTS transactions_user_payee_date");
}
