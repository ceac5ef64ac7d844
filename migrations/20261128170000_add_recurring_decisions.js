/**
 * The person's decisions on their regular payments (issue 38 item 1; docs/decisions.md#recurring-decisions):
 * one row per user and series key (list_recurring's `series`, "<direction>:<currency>:<folded payee>"),
 * written by set_recurring_series: confirmed, dismissed (never listed or forecast again) or corrected
 * (a payee to show, an amount range and a day-of-month window a charge must fall in to count). Captured
 * for undo like the ledger's tables (migrations/lib/captured-tables.js): Postgres gets its trigger here,
 * SQLite's are made from the list when the services start (src/db/row-capture.ts).
 *
 * users.calendar_series: the person's choice on /account that the calendar feed also carries their
 * confirmed series (issue 38 item 4); off by default, so a feed shows the bill reminders alone as before.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.schema.createTable("recurring_decisions", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("series_key", 400).notNullable();
    t.string("decision", 20).notNullable();
    t.string("payee", 255);
    t.bigInteger("amount_min_minor");
    t.bigInteger("amount_max_minor");
    t.integer("day_from");
    t.integer("day_to");
    t.string("created_at", 40).notNullable();
    t.string("updated_at", 40).notNullable();
    t.unique(["user_id", "series_key"], { indexName: "recurring_decisions_user_series" });
  });
  await knex.schema.alterTable("users", (t) => {
    t.integer("calendar_series").notNullable().defaultTo(0);
  });
  if (pg)
    await knex.raw(
      `CREATE OR REPLACE TRIGGER recurring_decisions_audit_rows AFTER INSERT OR UPDATE OR DELETE ON recurring_decisions
         FOR EACH ROW EXECUTE FUNCTION audit_rows_capture('id')`,
    );
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client === "pg") await knex.raw("DROP TRIGGER IF EXISTS recurring_decisions_audit_rows ON recurring_decisions");
  else {
    const triggers = await knex("sqlite_master").where({ type: "trigger", tbl_name: "recurring_decisions" }).select("name");
    for (const { name } of triggers) await knex.raw(`DROP TRIGGER IF EXISTS "${name}"`);
  }
  await knex.schema.dropTable("recurring_decisions");
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("calendar_series");
  });
}
