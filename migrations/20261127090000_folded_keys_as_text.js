/**
 * Postgres: the folded keys of payees and rule values become text. Folding can lengthen a text (a
 * dotted capital I becomes two characters, and some characters become three), so a payee of 140
 * characters, which the Payee schema allows, could fold past varchar(255), and a rule value of 200
 * characters past varchar(200). Postgres then refused the write; SQLite, which enforces no length,
 * stored it. The change from varchar to text is binary compatible: no table or index is rewritten.
 * SQLite: nothing.
 */
/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("ALTER TABLE transactions ALTER COLUMN payee_key TYPE text");
  await knex.raw("ALTER TABLE rules ALTER COLUMN value_key TYPE text");
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("ALTER TABLE rules ALTER COLUMN value_key TYPE varchar(200)");
  await knex.raw("ALTER TABLE transactions ALTER COLUMN payee_key TYPE varchar(255)");
}
