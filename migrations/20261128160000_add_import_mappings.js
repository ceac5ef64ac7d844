/**
 * A CSV mapping remembered per wallet (issue 37, item 3; docs/import.md, "A mapping remembered per
 * wallet"). One row per wallet and layout fingerprint (a hash of the file's normalised header row and
 * its preamble's keys: src/statements/csv-fingerprint.ts), holding the mapping a committed import used,
 * as JSON in the mapping's own shape (src/statements/types.ts CsvMapping). An import's commit writes it in
 * its own transaction, so it is captured for undo like the import's rows (migrations/lib/captured-tables.js):
 * undoing the import restores the mapping before it, or removes it. SQLite's capture triggers are made
 * from that list when the services start (src/db/row-capture.ts); Postgres's is made here.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("import_mappings", (t) => {
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("wallet_id", 40).notNullable().references("wallets.id").onDelete("CASCADE");
    t.string("fingerprint", 64).notNullable();
    t.text("mapping").notNullable();
    t.string("created_at", 30).notNullable();
    t.string("updated_at", 30).notNullable();
    t.primary(["user_id", "wallet_id", "fingerprint"]);
  });
  if (knex.client.config.client === "pg") {
    await knex.raw(
      `CREATE TRIGGER import_mappings_audit_rows AFTER INSERT OR UPDATE OR DELETE ON import_mappings
         FOR EACH ROW EXECUTE FUNCTION audit_rows_capture('user_id', 'wallet_id', 'fingerprint')`,
    );
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("import_mappings");
}
