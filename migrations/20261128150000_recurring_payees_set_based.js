/**
 * Postgres: an INSERT statement refreshes the recurring-payee summary (migration 20261125170000) of all
 * its payees in one set-based statement, not one function call per payee (issue 41).
 *
 * The statement trigger over the new rows (transition table recurring_new_rows) looped over the
 * statement's distinct payees and called recurring_payees_refresh for each: a DELETE and an
 * INSERT … SELECT per payee, ~5 ms each, so `finance-mcp import` of an export of 100,000 distinct payees
 * spent 537 s in it. Now the trigger locks each user of the statement once (as 20261128130000 does: one
 * advisory lock per user, in user order) and then runs one INSERT … ON CONFLICT DO UPDATE whose rows are
 * each touched payee's newest rows, read by a LATERAL seek of transactions_user_payee_date_id (the same
 * query as the per-payee refresh, latestRowsSql). An insert only adds rows, so every touched payee has a
 * row to keep: the upsert replaces what the DELETE and INSERT did. A payee whose new rows all lie below
 * its floor (strictly older than the oldest kept row) is skipped, as before. The result is the same
 * summary as the per-payee refresh (test/db/recurring-set-based.test.ts compares both on the same rows).
 *
 * Updates and deletes keep their row triggers (a bulk edit of payees or dates, an undo): out of this
 * change. SQLite: nothing (its row triggers are in-process and cheap; one writer, no lock table).
 * docs/decisions.md#recurring-payees-set-based.
 */
import { RECURRING_LATEST, latestRowsSql } from "./20261125170000_add_recurring_payees.js";

const LOCK_USER = (user) => `pg_advisory_xact_lock(hashtextextended('recurring_payees:' || ${user}, 0))`;
const ROW = "json_build_array(l.payee, l.date, l.amount_minor::text, l.currency, l.direction, l.wallet_id)";

const setBased = `CREATE OR REPLACE FUNCTION recurring_payees_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM ${LOCK_USER("u.user_id")}
           FROM (SELECT DISTINCT n.user_id FROM recurring_new_rows n WHERE n.payee IS NOT NULL ORDER BY 1) AS u;
        INSERT INTO recurring_payees (user_id, payee_key, latest, floor_date)
          SELECT k.user_id, k.payee_key, json_agg(${ROW} ORDER BY l.date DESC, l.id DESC)::text,
                 CASE WHEN count(*) >= ${RECURRING_LATEST} THEN min(l.date) END
            FROM (SELECT n.user_id, lower(n.payee) AS payee_key, max(n.date) AS newest FROM recurring_new_rows n
                   WHERE n.payee IS NOT NULL GROUP BY n.user_id, lower(n.payee)) AS k
            CROSS JOIN LATERAL (${latestRowsSql("k.user_id", "k.payee_key")}) AS l
           WHERE NOT EXISTS (SELECT 1 FROM recurring_payees r
                              WHERE r.user_id = k.user_id AND r.payee_key = k.payee_key AND r.floor_date > k.newest)
           GROUP BY k.user_id, k.payee_key
           ORDER BY k.user_id, k.payee_key
        ON CONFLICT (user_id, payee_key) DO UPDATE SET latest = EXCLUDED.latest, floor_date = EXCLUDED.floor_date;
        RETURN NULL;
      END $$`;

/** As 20261128130000 left it: one refresh call per payee. */
const perPayee = `CREATE OR REPLACE FUNCTION recurring_payees_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        k record;
      BEGIN
        PERFORM ${LOCK_USER("u.user_id")}
           FROM (SELECT DISTINCT n.user_id FROM recurring_new_rows n WHERE n.payee IS NOT NULL ORDER BY 1) AS u;
        FOR k IN SELECT n.user_id, lower(n.payee) AS payee_key, max(n.date) AS newest FROM recurring_new_rows n
                  WHERE n.payee IS NOT NULL GROUP BY n.user_id, lower(n.payee) ORDER BY 1, 2 LOOP
          IF NOT EXISTS (SELECT 1 FROM recurring_payees r WHERE r.user_id = k.user_id AND r.payee_key = k.payee_key AND r.floor_date > k.newest) THEN
            PERFORM recurring_payees_refresh(k.user_id, k.payee_key);
          END IF;
        END LOOP;
        RETURN NULL;
      END $$`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(setBased);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(perPayee);
}
