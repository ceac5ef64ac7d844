/**
 * The import ledger (import_keys) is captured for undo like the ledger's own tables
 * (migrations/lib/captured-tables.js): undoing an import then removes the keys its rows were recognised
 * by, so the statement can be imported again, instead of every row coming back as a duplicate of a
 * transaction the undo deleted. Postgres needs its trigger here (a database migrated before the table was
 * in the list has none; one migrated after already has it, hence OR REPLACE); SQLite's capture triggers
 * are made from the list when the services start (src/db/row-capture.ts).
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(
    `CREATE OR REPLACE TRIGGER import_keys_audit_rows AFTER INSERT OR UPDATE OR DELETE ON import_keys
       FOR EACH ROW EXECUTE FUNCTION audit_rows_capture('user_id', 'wallet_id', 'key')`,
  );
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("DROP TRIGGER IF EXISTS import_keys_audit_rows ON import_keys");
}
