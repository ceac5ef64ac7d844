/**
 * Postgres: the triggers that keep recurring_payees (migration 20261125170000) take one advisory lock per
 * user, not one per user and payee. A transaction holds each lock it took until it ends, and Postgres's
 * lock table has room for max_locks_per_transaction × max_connections of them for the whole cluster: an
 * import of 20,000 distinct payees took 20,000 locks and failed with "out of shared memory", failing
 * other users' writes and other databases' meanwhile (issue 41). One lock per user bounds it whatever the
 * number of payees (the same lock taken again by its holder takes no new entry).
 *
 * Nothing is lost by the coarser lock: the write pipeline already orders a user's writes by its own lock
 * (src/writes/pipeline.ts), taken before any trigger runs, so two writes of one user never ran their
 * refreshes side by side; the lock still orders a write that does not go through the pipeline (the CLI's
 * account import, SQL by hand) against the others. docs/decisions.md#recurring-payees-one-lock.
 * SQLite: nothing (one writer; no lock table).
 */

const LOCK_KEY = {
  perPayee: (user, payee) => `'recurring_payees:' || ${user} || ':' || ${payee}`,
  perUser: (user) => `'recurring_payees:' || ${user}`,
};

const follow = (lockOld, lockNew) => `CREATE OR REPLACE FUNCTION recurring_payees_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.payee IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended(${lockOld}, 0));
          IF OLD.payee IS NOT NULL AND NOT EXISTS (SELECT 1 FROM recurring_payees r
               WHERE r.user_id = OLD.user_id AND r.payee_key = lower(OLD.payee) AND r.floor_date > OLD.date)
          THEN PERFORM recurring_payees_refresh(OLD.user_id, lower(OLD.payee)); END IF;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.payee IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended(${lockNew}, 0));
          IF NEW.payee IS NOT NULL AND NOT EXISTS (SELECT 1 FROM recurring_payees r
               WHERE r.user_id = NEW.user_id AND r.payee_key = lower(NEW.payee) AND r.floor_date > NEW.date)
          THEN PERFORM recurring_payees_refresh(NEW.user_id, lower(NEW.payee)); END IF;
        END IF;
        RETURN NULL;
      END $$`;

/** Inserts: the statement's users each locked once, before their payees are refreshed (in user order, so two such statements never wait on each other in a cycle). */
const followInsert = (perUser) => `CREATE OR REPLACE FUNCTION recurring_payees_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        k record;
      BEGIN
        ${
          perUser
            ? `PERFORM pg_advisory_xact_lock(hashtextextended(${LOCK_KEY.perUser("u.user_id")}, 0))
           FROM (SELECT DISTINCT n.user_id FROM recurring_new_rows n WHERE n.payee IS NOT NULL ORDER BY 1) AS u;`
            : ""
        }
        FOR k IN SELECT n.user_id, lower(n.payee) AS payee_key, max(n.date) AS newest FROM recurring_new_rows n
                  WHERE n.payee IS NOT NULL GROUP BY n.user_id, lower(n.payee) ORDER BY 1, 2 LOOP
          ${perUser ? "" : `PERFORM pg_advisory_xact_lock(hashtextextended(${LOCK_KEY.perPayee("k.user_id", "k.payee_key")}, 0));`}
          IF NOT EXISTS (SELECT 1 FROM recurring_payees r WHERE r.user_id = k.user_id AND r.payee_key = k.payee_key AND r.floor_date > k.newest) THEN
            PERFORM recurring_payees_refresh(k.user_id, k.payee_key);
          END IF;
        END LOOP;
        RETURN NULL;
      END $$`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(follow(LOCK_KEY.perUser("OLD.user_id"), LOCK_KEY.perUser("NEW.user_id")));
  await knex.raw(followInsert(true));
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(follow(LOCK_KEY.perPayee("OLD.user_id", "lower(OLD.payee)"), LOCK_KEY.perPayee("NEW.user_id", "lower(NEW.payee)")));
  await knex.raw(followInsert(false));
}
