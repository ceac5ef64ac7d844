/**
 * recurring_payees: per user and payee key (lower(payee)), the newest RECURRING_LATEST transactions of
 * that payee (date, then id, newest first), as one JSON array, so that list_recurring reads one row per
 * payee in one statement instead of walking the payee index and reading each payee's rows
 * (docs/decisions.md#recurring-summary; src/domain/recurring/store.ts reads it).
 *
 * Kept by triggers on transactions, like the totals (202611220001, 202611220101): every write path (the
 * tools, bulk edits, imports, undo, an account import, tests writing SQL, a cascade) keeps it in the same
 * transaction as the change. A write refreshes the payee's row from the index transactions_user_payee_date_id
 * (a seek and RECURRING_LATEST rows), unless the row it wrote or removed lies below the payee's floor_date
 * (the date of the oldest kept row, when RECURRING_LATEST are kept): such a row can be in the newest ones
 * neither before nor after the write, so nothing changes (a history import of old rows, a bulk edit of
 * old rows, an edit of a category or a tag never refreshes). A payee whose last row is gone loses its row.
 *
 * Postgres: an INSERT statement refreshes each payee of its rows once (a statement trigger over its new
 * rows: an import's batch of 1,000 rows of a few payees is a few refreshes, not 1,000); updates and
 * deletes refresh per row. The refresh takes a transaction-level advisory lock on the user and payee key
 * before it reads the floor, so two concurrent writes of one payee refresh one after the other, each from what is
 * committed (READ COMMITTED: each statement of the function sees the other's commit).
 * Deleting an account skips the DELETE trigger for the erased person (as 20261125120000 does for the
 * totals); the deletion removes the rows itself, after the transactions (src/account/tables.ts).
 *
 * The migration fills the table from the rows already there (BACKFILL_SQL, which scripts/bench/seed.ts
 * also runs after its trigger-less load).
 */

/** How many of a payee's newest rows are kept: enough to judge twelve intervals (docs/decisions.md#recurring-detection). */
export const RECURRING_LATEST = 13;

/** The kept row, as a JSON array: payee, date, amount_minor (text: a bigint), currency, direction, wallet_id. */
const rowJson = (pg) =>
  pg
    ? "json_build_array(payee, date, amount_minor::text, currency, direction, wallet_id)"
    : "json_array(payee, date, CAST(amount_minor AS TEXT), currency, direction, wallet_id)";
const agg = (pg) => (pg ? `json_agg(${rowJson(true)} ORDER BY date DESC, id DESC)::text` : `json_group_array(${rowJson(false)} ORDER BY date DESC, id DESC)`);
const FLOOR = `CASE WHEN count(*) >= ${RECURRING_LATEST} THEN min(date) END`;

/** A payee's newest rows: the top of its range of transactions_user_payee_date_id, no sort. */
export function latestRowsSql(user, key) {
  return `SELECT id, payee, date, amount_minor, currency, direction, wallet_id FROM transactions
     WHERE user_id = ${user} AND lower(payee) = ${key} ORDER BY date DESC, id DESC LIMIT ${RECURRING_LATEST}`;
}

/** The payee's row made again from its newest rows (none when it has no rows left). */
function refreshSql(pg, user, key) {
  return `DELETE FROM recurring_payees WHERE user_id = ${user} AND payee_key = ${key};
    INSERT INTO recurring_payees (user_id, payee_key, latest, floor_date)
      SELECT ${user}, ${key}, ${agg(pg)}, ${FLOOR} FROM (${latestRowsSql(user, key)}) AS t
      HAVING count(*) > 0;`;
}

/** Rebuilds the table from scratch (an empty table is expected). */
export function backfillSql(pg) {
  return `INSERT INTO recurring_payees (user_id, payee_key, latest, floor_date)
    SELECT user_id, payee_key, ${agg(pg)}, ${FLOOR}
      FROM (SELECT user_id, lower(payee) AS payee_key, id, payee, date, amount_minor, currency, direction, wallet_id,
                   row_number() OVER (PARTITION BY user_id, lower(payee) ORDER BY date DESC, id DESC) AS n
              FROM transactions WHERE payee IS NOT NULL) AS t
     WHERE n <= ${RECURRING_LATEST}
     GROUP BY user_id, payee_key`;
}

/** The columns a kept row shows or is ordered and keyed by. */
const WATCHED = ["user_id", "payee", "date", "amount_minor", "currency", "direction", "wallet_id"];

/** True when `row` may be among its payee's kept rows: not strictly below the payee's floor. */
const mayBeKept = (row) =>
  `${row}.payee IS NOT NULL AND NOT EXISTS (SELECT 1 FROM recurring_payees r
     WHERE r.user_id = ${row}.user_id AND r.payee_key = lower(${row}.payee) AND r.floor_date > ${row}.date)`;

const NOT_ERASING_PG = "current_setting('finance_mcp.erase_user', true) IS DISTINCT FROM OLD.user_id";
const NOT_ERASING_SQLITE = "NOT EXISTS (SELECT 1 FROM account_erasure WHERE user_id = OLD.user_id)";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.raw("CREATE INDEX transactions_user_payee_date_id ON transactions (user_id, lower(payee), date, id)");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_payee_date");
  await knex.schema.createTable("recurring_payees", (t) => {
    t.string("user_id", 40).notNullable();
    t.string("payee_key", 200).notNullable();
    t.text("latest").notNullable();
    t.string("floor_date", 10);
    t.primary(["user_id", "payee_key"]);
  });
  await knex.raw(backfillSql(pg));

  if (pg) {
    await knex.raw(`CREATE FUNCTION recurring_payees_refresh(u text, k text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        ${refreshSql(true, "u", "k")}
      END $$`);
    await knex.raw(`CREATE FUNCTION recurring_payees_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.payee IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('recurring_payees:' || OLD.user_id || ':' || lower(OLD.payee), 0));
          IF ${mayBeKept("OLD")} THEN PERFORM recurring_payees_refresh(OLD.user_id, lower(OLD.payee)); END IF;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.payee IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('recurring_payees:' || NEW.user_id || ':' || lower(NEW.payee), 0));
          IF ${mayBeKept("NEW")} THEN PERFORM recurring_payees_refresh(NEW.user_id, lower(NEW.payee)); END IF;
        END IF;
        RETURN NULL;
      END $$`);
    // Inserts (an import's batches, an account import) refresh each payee once per statement, from
    // the statement's new rows (a transition table): the summary still holds the floor from before it.
    await knex.raw(`CREATE FUNCTION recurring_payees_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        k record;
      BEGIN
        FOR k IN SELECT n.user_id, lower(n.payee) AS payee_key, max(n.date) AS newest FROM recurring_new_rows n
                  WHERE n.payee IS NOT NULL GROUP BY n.user_id, lower(n.payee) ORDER BY 1, 2 LOOP
          PERFORM pg_advisory_xact_lock(hashtextextended('recurring_payees:' || k.user_id || ':' || k.payee_key, 0));
          IF NOT EXISTS (SELECT 1 FROM recurring_payees r WHERE r.user_id = k.user_id AND r.payee_key = k.payee_key AND r.floor_date > k.newest) THEN
            PERFORM recurring_payees_refresh(k.user_id, k.payee_key);
          END IF;
        END LOOP;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE FUNCTION recurring_payees_clear() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM recurring_payees; RETURN NULL; END $$`);
    await knex.raw(`CREATE TRIGGER recurring_payees_insert AFTER INSERT ON transactions
      REFERENCING NEW TABLE AS recurring_new_rows FOR EACH STATEMENT EXECUTE FUNCTION recurring_payees_follow_insert()`);
    await knex.raw(`CREATE TRIGGER recurring_payees_update AFTER UPDATE OF ${WATCHED.join(", ")} ON transactions
      FOR EACH ROW WHEN (${WATCHED.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(" OR ")})
      EXECUTE FUNCTION recurring_payees_follow()`);
    await knex.raw(`CREATE TRIGGER recurring_payees_delete AFTER DELETE ON transactions
      FOR EACH ROW WHEN (OLD.payee IS NOT NULL AND ${NOT_ERASING_PG}) EXECUTE FUNCTION recurring_payees_follow()`);
    await knex.raw(`CREATE TRIGGER recurring_payees_truncate AFTER TRUNCATE ON transactions
      FOR EACH STATEMENT EXECUTE FUNCTION recurring_payees_clear()`);
  } else {
    const refresh = (row) => refreshSql(false, `${row}.user_id`, `lower(${row}.payee)`);
    await knex.raw(`CREATE TRIGGER recurring_payees_insert AFTER INSERT ON transactions WHEN ${mayBeKept("NEW")} BEGIN
      ${refresh("NEW")}
    END`);
    // Two triggers for an update, one per side, each with its own condition (SQLite has no IF in a trigger).
    const changed = WATCHED.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(" OR ");
    await knex.raw(`CREATE TRIGGER recurring_payees_update_old AFTER UPDATE OF ${WATCHED.join(", ")} ON transactions
      WHEN (${changed}) AND ${mayBeKept("OLD")} BEGIN
      ${refresh("OLD")}
    END`);
    await knex.raw(`CREATE TRIGGER recurring_payees_update_new AFTER UPDATE OF ${WATCHED.join(", ")} ON transactions
      WHEN (${changed}) AND ${mayBeKept("NEW")} BEGIN
      ${refresh("NEW")}
    END`);
    await knex.raw(`CREATE TRIGGER recurring_payees_delete AFTER DELETE ON transactions
      WHEN ${mayBeKept("OLD")} AND ${NOT_ERASING_SQLITE} BEGIN
      ${refresh("OLD")}
    END`);
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  const pg = knex.client.config.client === "pg";
  const triggers = pg
    ? ["recurring_payees_truncate", "recurring_payees_delete", "recurring_payees_update", "recurring_payees_insert"]
    : ["recurring_payees_delete", "recurring_payees_update_new", "recurring_payees_update_old", "recurring_payees_insert"];
  for (const name of triggers) await knex.raw(`DROP TRIGGER IF EXISTS ${name}${pg ? " ON transactions" : ""}`);
  if (pg) {
    await knex.raw("DROP FUNCTION IF EXISTS recurring_payees_clear()");
    await knex.raw("DROP FUNCTION IF EXISTS recurring_payees_follow()");
    await knex.raw("DROP FUNCTION IF EXISTS recurring_payees_follow_insert()");
    await knex.raw("DROP FUNCTION IF EXISTS recurring_payees_refresh(text, text)");
  }
  await knex.schema.dropTableIfExists("recurring_payees");
  await knex.raw("CREATE INDEX transactions_user_payee_date ON transactions (user_id, lower(payee), date)");
  await knex.raw("DROP INDEX IF EXISTS transactions_user_payee_date_id");
}
