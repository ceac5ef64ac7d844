/**
 * Statement import and categorisation rules (docs/import.md).
 *
 * import_keys: the import ledger. One row per key an imported row was recognised by ("id:<bank id>" for
 * the bank's own id, "c:<date>|<amount>|<payee>|<occurrence>" for its content), naming the transaction it
 * became. It deliberately has no foreign key to transactions: when the person deletes an imported
 * transaction its keys stay, so a re-import of the same statement does not bring the row back.
 *
 * rules: the person's categorisation rules, tried in `position` order (the first match wins). A condition
 * on payee or description (equals / contains / starts_with, compared folded to lower case), optional
 * amount range (magnitudes as decimal text), direction and wallet; actions set a category, add tags (a
 * JSON array) and rename the payee.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("import_keys", (t) => {
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("wallet_id", 40).notNullable().references("wallets.id").onDelete("CASCADE");
    t.string("key", 300).notNullable();
    t.string("transaction_id", 40).notNullable();
    t.string("created_at", 30).notNullable();
    t.primary(["user_id", "wallet_id", "key"]);
  });

  await knex.schema.createTable("rules", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.string("field", 20).notNullable(); // "payee" | "description"
    t.string("operator", 20).notNullable(); // "equals" | "contains" | "starts_with"
    t.string("value", 200).notNullable();
    t.string("value_key", 200).notNullable();
    t.string("min_amount", 40);
    t.string("max_amount", 40);
    t.string("direction", 10); // "expense" | "income" | null: both
    t.string("wallet_id", 40).references("wallets.id").onDelete("CASCADE");
    t.string("set_category", 255);
    t.text("add_tags"); // JSON array of tags, or null
    t.string("rename_payee", 255);
    t.string("created_at", 30).notNullable();
    t.string("updated_at", 30).notNullable();
    t.index(["user_id", "position"]);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable("rules");
  await knex.schema.dropTable("import_keys");
}
