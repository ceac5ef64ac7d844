/**
 * The audit log stays append-only on Postgres, with one exception: deleting a person's account
 * (src/account/delete.ts) deletes that person's entries. The transaction that deletes an account names
 * the person in a transaction-local setting (finance_mcp.erase_user, set by src/db/account-erasure.ts);
 * the trigger lets a DELETE through only for rows of that person, and refuses every UPDATE, every other
 * DELETE and TRUNCATE as before. SQLite never had the trigger.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(`CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF OLD.user_id = current_setting('finance_mcp.erase_user', true) THEN RETURN OLD; END IF;
      END IF;
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
    END $$`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(`CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP; END $$`);
}
