/**
 * Postgres: the row triggers that keep wallet_month_totals, expense_day_totals and transactions.tags_key
 * on INSERT stand aside inside a transaction that set `SET LOCAL finance_mcp.bulk = 'on'`: only
 * `finance-mcp import` does, which then rebuilds the imported user's totals with set-based statements
 * (src/db/bulk-totals.ts) before it commits. Row by row, 100,000 imported transactions updated the
 * same few total rows 100,000 times in one transaction, each update walking the versions the ones before
 * it left: minutes instead of seconds (docs/history/perf-import.md).
 *
 * The setting is transaction-local (SET LOCAL), so no other write of any process is affected; UPDATE and
 * DELETE triggers are unchanged. SQLite keeps its triggers as they are (its row triggers are cheap).
 */
const BULK_OFF = "current_setting('finance_mcp.bulk', true) IS DISTINCT FROM 'on'";

const TRIGGERS = [
  { name: "wallet_month_totals_insert", table: "transactions", when: undefined, fn: "wallet_month_totals_apply" },
  { name: "expense_day_totals_insert", table: "transactions", when: "NEW.direction = 'expense'", fn: "expense_day_totals_apply" },
  { name: "transactions_tags_key_insert", table: "transaction_tags", when: undefined, fn: "transactions_tags_key_follow" },
];

async function recreate(knex, withSwitch) {
  for (const t of TRIGGERS) {
    const conditions = [t.when, withSwitch ? BULK_OFF : undefined].filter(Boolean);
    await knex.raw(`DROP TRIGGER IF EXISTS ${t.name} ON ${t.table}`);
    await knex.raw(`CREATE TRIGGER ${t.name} AFTER INSERT ON ${t.table}
      FOR EACH ROW ${conditions.length > 0 ? `WHEN (${conditions.join(" AND ")})` : ""} EXECUTE FUNCTION ${t.fn}()`);
  }
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await recreate(knex, true);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  await recreate(knex, false);
}
