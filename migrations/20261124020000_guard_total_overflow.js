/**
 * SQLite: refuse a running total that left 64-bit integers instead of storing it as a REAL.
 *
 * SQLite's `total_minor + excluded.total_minor` turns into a floating-point number when it overflows
 * int64, and the triggers of wallet_month_totals (202611220001) and expense_day_totals (202611220101)
 * would store it: balances would then be read back rounded, or refused (toMinorBigInt) for every wallet
 * of the user, for good. These guards RAISE before such a value is written, which aborts the write's
 * statement; src/db/errors.ts answers it as `conflict` on `amount`. Postgres needs nothing: BIGINT
 * arithmetic raises 22003 there, translated the same way.
 *
 * The service's bounds (info.x-limits of openrpc.json, checked before a write commits:
 * src/domain/wallets/ceiling.ts) keep every total far below this; the guards are the last line, for
 * whatever those checks miss (deletes and moves that undo offsetting rows, or rows written directly).
 */
const GUARDED = ["wallet_month_totals", "expense_day_totals"];
const MESSAGE = "finance_total_overflow"; // src/db/errors.ts#TOTAL_OVERFLOW

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client === "pg") return;
  for (const table of GUARDED) {
    for (const event of ["INSERT", "UPDATE"]) {
      await knex.raw(`CREATE TRIGGER ${table}_overflow_${event.toLowerCase()} BEFORE ${event} ON ${table}
        WHEN typeof(NEW.total_minor) <> 'integer'
        BEGIN SELECT RAISE(ABORT, '${MESSAGE}'); END`);
    }
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client === "pg") return;
  for (const table of GUARDED) {
    for (const event of ["insert", "update"]) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_overflow_${event}`);
  }
}
