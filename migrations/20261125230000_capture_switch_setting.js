/**
 * Postgres: the audit's row capture (migration 20261125080102) is switched on for a write by a setting
 * local to the write's transaction, finance_mcp.capture_user = the user's id, which the write pipeline
 * sets in the same statement that takes its locks (src/writes/bookkeeping.ts). The marker row in
 * audit_capture was a statement of its own at the start of every write and another at its end
 * (docs/decisions.md#write-bookkeeping-in-two-statements). The marker still switches capture on, so a
 * process started before this migration captures as before while both run over one database.
 * SQLite: nothing (its triggers read audit_capture; it has no round trips to save).
 */
const BODY = (condition) => `CREATE OR REPLACE FUNCTION audit_rows_capture() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        src jsonb;
        uid text;
        k jsonb;
      BEGIN
        IF TG_OP = 'DELETE' THEN src := to_jsonb(OLD); ELSE src := to_jsonb(NEW); END IF;
        uid := src ->> 'user_id';
        IF ${condition} THEN RETURN NULL; END IF;
        SELECT jsonb_object_agg(c, src -> c) INTO k FROM unnest(TG_ARGV) AS c;
        INSERT INTO audit_rows (user_id, table_name, row_key, before_json, after_json)
          VALUES (uid, TG_TABLE_NAME, k::text,
                  CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD)::text END,
                  CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW)::text END);
        RETURN NULL;
      END $$`;

const MARKER_ONLY = "NOT EXISTS (SELECT 1 FROM audit_capture WHERE user_id = uid)";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(BODY(`current_setting('finance_mcp.capture_user', true) IS DISTINCT FROM uid AND ${MARKER_ONLY}`));
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(BODY(MARKER_ONLY));
}
