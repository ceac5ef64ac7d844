/**
 * Postgres: a captured row is written once, with its audit id. The write pipeline takes the audit row's
 * id from audit_log's sequence with its locks (src/writes/bookkeeping.ts) and sets it, local to the
 * transaction, as finance_mcp.capture_audit; the capture trigger writes it into audit_rows.audit_id.
 *
 * Before, every captured row was inserted with a null audit_id and updated at the end of the write
 * (UPDATE audit_rows … WHERE user_id = ? AND audit_id IS NULL). Each update left a dead row version whose
 * index entry still reads (user, NULL) until a vacuum: after ten 5,000-row bulk edits and their undos,
 * every later write of that user walked some 270,000 such entries and their heap pages, 0.4–0.5 s under
 * the user's lock, so 50 concurrent writes of one person queued past any client's timeout
 * (docs/decisions.md#audit-id-at-capture). Writing each row once also halves the audit's writes.
 *
 * Without the setting (a process started before this migration, which still links its rows at the end)
 * the trigger writes a null audit_id as before. SQLite: nothing (an update there leaves no dead version).
 */
const BODY = (auditId) => `CREATE OR REPLACE FUNCTION audit_rows_capture() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        src jsonb;
        uid text;
        k jsonb;
      BEGIN
        IF TG_OP = 'DELETE' THEN src := to_jsonb(OLD); ELSE src := to_jsonb(NEW); END IF;
        uid := src ->> 'user_id';
        IF current_setting('finance_mcp.capture_user', true) IS DISTINCT FROM uid
           AND NOT EXISTS (SELECT 1 FROM audit_capture WHERE user_id = uid) THEN RETURN NULL; END IF;
        SELECT jsonb_object_agg(c, src -> c) INTO k FROM unnest(TG_ARGV) AS c;
        INSERT INTO audit_rows (audit_id, user_id, table_name, row_key, before_json, after_json)
          VALUES (${auditId}, uid, TG_TABLE_NAME, k::text,
                  CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD)::text END,
                  CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW)::text END);
        RETURN NULL;
      END $$`;

/**
 * The write's audit id, when the pipeline set it for this user (a setting set local to an earlier
 * transaction of the session reads '' afterwards, hence NULLIF).
 */
const AUDIT_ID = `CASE WHEN current_setting('finance_mcp.capture_user', true) = uid
  THEN NULLIF(current_setting('finance_mcp.capture_audit', true), '')::bigint END`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(BODY(AUDIT_ID));
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(BODY("NULL"));
}
