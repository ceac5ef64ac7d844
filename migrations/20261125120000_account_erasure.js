/**
 * The audit log stays append-only on Postgres, with one exception: deleting a person's account
 * (src/account/delete.ts) deletes that person's entries. The transaction that deletes an account names
 * the person in a transaction-local setting (finance_mcp.erase_user, set by src/db/account-erasure.ts);
 * the trigger lets a DELETE through only for rows of that person, and refuses every UPDATE, every other
 * DELETE and TRUNCATE as before. SQLite never had the trigger.
 *
 * The same setting lets the deletion skip the row triggers that keep derived data on DELETE (the totals,
 * a transaction's tags_key): they would rewrite, row by row, totals and transactions that the same
 * transaction deletes next (78 s for 100,000 transactions; docs/history/perf-deleting-an-account.md).
 * Each trigger keeps its function and its condition; only the erased person's rows skip it. A trigger
 * that a later migration makes again without the condition still gives the right result, only slower.
 */

/** True unless this transaction deletes the row's person. */
const NOT_ERASING = "current_setting('finance_mcp.erase_user', true) IS DISTINCT FROM OLD.user_id";
/** The DELETE triggers of migrations 202611220001, 202611220101 and 20261125040100: table, function, condition. */
const DELETE_TRIGGERS = [
  { name: "transactions_tags_key_delete", table: "transaction_tags", fn: "transactions_tags_key_follow", when: null },
  { name: "expense_day_totals_delete", table: "transactions", fn: "expense_day_totals_apply", when: "OLD.direction = 'expense'" },
  { name: "wallet_month_totals_delete", table: "transactions", fn: "wallet_month_totals_apply", when: null },
];

/** @param {import('knex').Knex} knex */
async function remakeDeleteTriggers(knex, skipErased) {
  for (const t of DELETE_TRIGGERS) {
    const conditions = [t.when, skipErased ? NOT_ERASING : null].filter(Boolean);
    await knex.raw(`DROP TRIGGER IF EXISTS ${t.name} ON ${t.table}`);
    await knex.raw(`CREATE TRIGGER ${t.name} AFTER DELETE ON ${t.table} FOR EACH ROW
      ${conditions.length > 0 ? `WHEN (${conditions.join(" AND ")})` : ""} EXECUTE FUNCTION ${t.fn}()`);
  }
}

/**
 * SQLite has no transaction-local setting: the deletion writes the person's id into account_erasure
 * (inside its transaction, so no one else ever sees the row), and the same three triggers skip rows of
 * a person found there. Their SQL is read back and given the condition, whatever else it says.
 */
const MARKED = "NOT EXISTS (SELECT 1 FROM account_erasure WHERE user_id = OLD.user_id)";

/** @param {import('knex').Knex} knex */
async function remakeSqliteTriggers(knex, skipErased) {
  for (const t of DELETE_TRIGGERS) {
    const row = await knex("sqlite_master").where({ type: "trigger", name: t.name }).first("sql");
    if (!row) continue;
    const sql = String(row.sql);
    const at = sql.search(/\sBEGIN\s/);
    const head = sql.slice(0, at);
    const body = sql.slice(at);
    const when = /\sWHEN\s([\s\S]*)$/.exec(head);
    let remade;
    if (skipErased) {
      remade = when ? `${head.slice(0, when.index)} WHEN (${when[1]}) AND ${MARKED}${body}` : `${head} WHEN ${MARKED}${body}`;
    } else {
      const cond = when?.[1] ?? "";
      const kept = cond === MARKED ? "" : cond.endsWith(` AND ${MARKED}`) ? ` WHEN ${cond.slice(1, -` AND ${MARKED}`.length - 1)}` : ` WHEN ${cond}`;
      remade = `${when ? head.slice(0, when.index) : head}${kept}${body}`;
    }
    await knex.raw(`DROP TRIGGER ${t.name}`);
    await knex.raw(remade);
  }
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("account_erasure", (t) => {
    t.string("user_id", 40).primary();
  });
  if (knex.client.config.client !== "pg") return remakeSqliteTriggers(knex, true);
  await knex.raw(`CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF OLD.user_id = current_setting('finance_mcp.erase_user', true) THEN RETURN OLD; END IF;
      END IF;
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
    END $$`);
  await remakeDeleteTriggers(knex, true);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") {
    await remakeSqliteTriggers(knex, false);
    return knex.schema.dropTableIfExists("account_erasure");
  }
  await knex.schema.dropTableIfExists("account_erasure");
  await knex.raw(`CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP; END $$`);
  await remakeDeleteTriggers(knex, false);
}
