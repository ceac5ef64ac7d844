/**
 * Split transactions and refunds (docs/ledger.md, "Split transactions" and "Refunds").
 *
 * transaction_parts: the parts of a split transaction, one row per part, in the order given (position
 * from 0). Each carries its own signed amount (the total's sign; the parts sum exactly to the
 * transaction's amount_minor), category (and its folded key), tags (a JSON array of folded tags, sorted,
 * the form transactions.tags_key has) and notes. The transaction row keeps the total, so a wallet, its
 * balance and a statement line see one row; its own category is null and its tags (transaction_tags) are
 * the union of its parts' tags, so that tag filters match it through its parts. A transaction without
 * parts rows is not split.
 *
 * refund: 1 on an income (or an income's part) that gives money back to spending: marked with refund_of
 * (transactions.refund_of, the expense it refunds) or filed in a category the person spends in when it
 * was written. Decided by the domain code when the row is written and stored, so that every reader
 * (summary, categories, budgets) tells a refund with one column instead of looking for expenses each time.
 *
 * Budgets read expense_day_totals, which its triggers keep per transaction row: the budget query adds
 * the parts of split rows (and takes out their wholes) and the refunds itself, from the two indexes
 * below, which hold only split and refund rows (src/domain/budgets/status.ts).
 */
import { CAPTURED_TABLES } from "./lib/captured-tables.js";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.schema.alterTable("transactions", (t) => {
    t.string("refund_of", 40);
    t.integer("refund").notNullable().defaultTo(0);
  });
  await knex.raw("CREATE INDEX transactions_user_refund_date ON transactions (user_id, date) WHERE refund = 1");
  await knex.schema.createTable("transaction_parts", (t) => {
    t.string("transaction_id", 40).notNullable().references("transactions.id").onDelete("CASCADE");
    t.integer("position").notNullable();
    t.string("user_id", 40).notNullable();
    t.bigInteger("amount_minor").notNullable();
    t.string("category", 255);
    t.string("category_key", 255);
    t.text("tags").notNullable().defaultTo("[]");
    t.text("notes");
    t.integer("refund").notNullable().defaultTo(0);
    t.primary(["transaction_id", "position"]);
    t.index(["user_id", "category_key"], "transaction_parts_user_category");
  });
  if (pg) {
    // The audit's row capture (migration 20261125080102): Postgres's triggers are made per table once.
    const parts = CAPTURED_TABLES.find((c) => c.table === "transaction_parts");
    await knex.raw(
      `CREATE TRIGGER transaction_parts_audit_rows AFTER INSERT OR UPDATE OR DELETE ON transaction_parts
         FOR EACH ROW EXECUTE FUNCTION audit_rows_capture(${parts.key.map((k) => `'${k}'`).join(", ")})`,
    );
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("transaction_parts");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_refund_date");
  // Plain DROP COLUMN on both engines: knex's SQLite dropColumn rebuilds the table, which the triggers
  // on transactions (totals, tags_key) refuse; SQLite drops a column in place since 3.35.
  await knex.raw("ALTER TABLE transactions DROP COLUMN refund_of");
  await knex.raw("ALTER TABLE transactions DROP COLUMN refund");
}
