/**
 * Postgres: the captured rows indexed by (user_id, audit_id, id), replacing (user_id, audit_id). Undo reads
 * the rows of the changes after the one it undoes a page at a time in (audit_id, id) order
 * (src/audit/undo.ts laterRows, issue 51); with id in the index each page is a range of it, where the
 * old index made every page read and sort all the later rows. SQLite's index already ends in the rowid.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("CREATE INDEX audit_rows_user_audit_id ON audit_rows (user_id, audit_id, id)");
  await knex.raw("DROP INDEX IF EXISTS audit_rows_user_audit");
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("CREATE INDEX audit_rows_user_audit ON audit_rows (user_id, audit_id)");
  await knex.raw("DROP INDEX IF EXISTS audit_rows_user_audit_id");
}
