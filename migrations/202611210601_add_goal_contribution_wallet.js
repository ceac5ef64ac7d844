/**
 * goal_contributions.from_wallet_id: the wallet a contribution came from (or a withdrawal went back to),
 * recorded with the contribution itself. The wallet transaction add_goal_funds records beside it may later
 * be deleted on its own (delete_transaction); the contribution keeps saying where the money came from.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("goal_contributions", (t) => {
    t.string("from_wallet_id", 40);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  // Plain ALTER TABLE ... DROP COLUMN on both engines (SQLite >= 3.35): no table rebuild.
  await knex.raw("ALTER TABLE goal_contributions DROP COLUMN from_wallet_id");
}
