/**
 * Per-row snapshots of every committed write, for undo_change (src/writes/undo.ts):
 *   audit_rows     one row per inserted, updated or deleted row of a user's data (its table, its key as
 *                  JSON, the whole row before and after as JSON), linked to the write's audit_log row;
 *   audit_capture  a marker row the write pipeline inserts at the start of a write's transaction and
 *                  deletes before commit: the capture triggers record only while it is there, so rows
 *                  written outside the pipeline (migrations, bulk loads, a user's cascade) are not taken
 *                  for part of the next write. On Postgres the marker is invisible to other transactions.
 * Rows are captured by triggers, so every write that goes through the pipeline — imports and bulk edits
 * included — is recorded the same way without code of its own.
 *
 * Postgres: one trigger function (to_jsonb of the row, so new columns are captured without a change
 * here), one trigger per table with its key columns as arguments. SQLite has no row-to-JSON: its
 * triggers list the columns: src/db/row-capture.ts drops them before every migration run and makes them
 * from the live schema when the services start, so a column added later is captured too.
 */
import { CAPTURED_TABLES } from "./lib/captured-tables.js";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.schema.createTable("audit_rows", (t) => {
    t.bigIncrements("id").primary();
    t.bigInteger("audit_id");
    t.string("user_id", 40).notNullable();
    t.string("table_name", 40).notNullable();
    t.text("row_key").notNullable();
    t.text("before_json");
    t.text("after_json");
    t.index(["user_id", "audit_id"], "audit_rows_user_audit");
    t.index(["user_id", "table_name", "row_key", "audit_id"], "audit_rows_user_row");
  });
  await knex.schema.createTable("audit_capture", (t) => {
    t.string("user_id", 40).primary();
  });
  if (pg) {
    await knex.raw(`CREATE FUNCTION audit_rows_capture() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        src jsonb;
        uid text;
        k jsonb;
      BEGIN
        IF TG_OP = 'DELETE' THEN src := to_jsonb(OLD); ELSE src := to_jsonb(NEW); END IF;
        uid := src ->> 'user_id';
        IF NOT EXISTS (SELECT 1 FROM audit_capture WHERE user_id = uid) THEN RETURN NULL; END IF;
        SELECT jsonb_object_agg(c, src -> c) INTO k FROM unnest(TG_ARGV) AS c;
        INSERT INTO audit_rows (user_id, table_name, row_key, before_json, after_json)
          VALUES (uid, TG_TABLE_NAME, k::text,
                  CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD)::text END,
                  CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW)::text END);
        RETURN NULL;
      END $$`);
    for (const { table, key } of CAPTURED_TABLES) {
      // A table a later migration makes (transaction_parts) gets its trigger from that migration.
      if (!(await knex.schema.hasTable(table))) continue;
      await knex.raw(
        `CREATE TRIGGER ${table}_audit_rows AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION audit_rows_capture(${key.map((k) => `'${k}'`).join(", ")})`,
      );
    }
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  const pg = knex.client.config.client === "pg";
  if (pg) {
    for (const { table } of CAPTURED_TABLES) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_audit_rows ON ${table}`);
    await knex.raw("DROP FUNCTION IF EXISTS audit_rows_capture()");
  } else {
    const triggers = await knex("sqlite_master").where({ type: "trigger" }).select("name");
    for (const { name } of triggers) if (/_audit_rows_(insert|update|delete)$/.test(name)) await knex.raw(`DROP TRIGGER IF EXISTS "${name}"`);
  }
  await knex.schema.dropTableIfExists("audit_capture");
  await knex.schema.dropTableIfExists("audit_rows");
}
