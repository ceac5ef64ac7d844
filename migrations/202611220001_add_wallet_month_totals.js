/**
 * wallet_month_totals: SUM(amount_minor) of a wallet's transactions per calendar month ('YYYY-MM', the
 * first seven characters of the date), so that a balance adds a few dozen monthly totals and one partial
 * month instead of reading the wallet's whole history (docs/ledger.md, "Monthly totals").
 *
 * Kept by triggers on transactions, not by application code: every write path (create/update/delete,
 * both legs of a transfer, add_goal_funds, tests inserting rows directly, a user's ON DELETE CASCADE)
 * then keeps the totals right in the same transaction, and a write that fails rolls them back with it.
 * A total that comes back to zero is deleted, so that a deleted wallet or user leaves no rows behind
 * (an absent row and a zero row mean the same). No foreign keys: the rows are derived, and a cascade
 * deleting a user must be able to reach zero through the triggers without tripping over them.
 *
 * The migration fills the table from the existing rows (one GROUP BY). The benchmark's bulk seeding
 * (scripts/bench/seed.ts) drops the triggers around its load and rebuilds the totals the same way.
 */

const WATCHED = ["user_id", "wallet_id", "date", "amount_minor"];
/** What an update must change to move money between totals (a new day in the same month does not). */
const changed = (distinct) =>
  ["user_id", "wallet_id", "amount_minor"]
    .map((c) => `OLD.${c} ${distinct} NEW.${c}`)
    .concat(`substr(OLD.date, 1, 7) ${distinct} substr(NEW.date, 1, 7)`)
    .join(" OR ");

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.schema.createTable("wallet_month_totals", (t) => {
    t.string("user_id", 40).notNullable();
    t.string("wallet_id", 40).notNullable();
    t.string("month", 7).notNullable();
    t.bigInteger("total_minor").notNullable();
    t.primary(["user_id", "wallet_id", "month"]);
  });

  if (pg) {
    // One row trigger function for the three events: take the old row out, put the new row in, drop a
    // total that reached zero (either side: a negative row can zero a month too).
    await knex.raw(`CREATE FUNCTION wallet_month_totals_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          INSERT INTO wallet_month_totals AS w (user_id, wallet_id, month, total_minor)
            VALUES (OLD.user_id, OLD.wallet_id, substr(OLD.date, 1, 7), -OLD.amount_minor)
            ON CONFLICT (user_id, wallet_id, month) DO UPDATE SET total_minor = w.total_minor + EXCLUDED.total_minor;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          INSERT INTO wallet_month_totals AS w (user_id, wallet_id, month, total_minor)
            VALUES (NEW.user_id, NEW.wallet_id, substr(NEW.date, 1, 7), NEW.amount_minor)
            ON CONFLICT (user_id, wallet_id, month) DO UPDATE SET total_minor = w.total_minor + EXCLUDED.total_minor;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          DELETE FROM wallet_month_totals
            WHERE user_id = OLD.user_id AND wallet_id = OLD.wallet_id AND month = substr(OLD.date, 1, 7) AND total_minor = 0;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          DELETE FROM wallet_month_totals
            WHERE user_id = NEW.user_id AND wallet_id = NEW.wallet_id AND month = substr(NEW.date, 1, 7) AND total_minor = 0;
        END IF;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE FUNCTION wallet_month_totals_clear() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM wallet_month_totals; RETURN NULL; END $$`);
    await knex.raw(`CREATE TRIGGER wallet_month_totals_insert AFTER INSERT ON transactions
      FOR EACH ROW EXECUTE FUNCTION wallet_month_totals_apply()`);
    await knex.raw(`CREATE TRIGGER wallet_month_totals_update AFTER UPDATE OF ${WATCHED.join(", ")} ON transactions
      FOR EACH ROW WHEN (${changed("IS DISTINCT FROM")})
      EXECUTE FUNCTION wallet_month_totals_apply()`);
    await knex.raw(`CREATE TRIGGER wallet_month_totals_delete AFTER DELETE ON transactions
      FOR EACH ROW EXECUTE FUNCTION wallet_month_totals_apply()`);
    // TRUNCATE fires no row triggers; it empties the totals with it.
    await knex.raw(`CREATE TRIGGER wallet_month_totals_truncate AFTER TRUNCATE ON transactions
      FOR EACH STATEMENT EXECUTE FUNCTION wallet_month_totals_clear()`);
  } else {
    const add = (row, sign) => `INSERT INTO wallet_month_totals (user_id, wallet_id, month, total_minor)
        VALUES (${row}.user_id, ${row}.wallet_id, substr(${row}.date, 1, 7), ${sign}${row}.amount_minor)
        ON CONFLICT (user_id, wallet_id, month) DO UPDATE SET total_minor = total_minor + excluded.total_minor;`;
    const dropZero = (row) => `DELETE FROM wallet_month_totals
        WHERE user_id = ${row}.user_id AND wallet_id = ${row}.wallet_id AND month = substr(${row}.date, 1, 7) AND total_minor = 0;`;
    await knex.raw(`CREATE TRIGGER wallet_month_totals_insert AFTER INSERT ON transactions BEGIN
      ${add("NEW", "")}
      ${dropZero("NEW")}
    END`);
    await knex.raw(`CREATE TRIGGER wallet_month_totals_update AFTER UPDATE OF ${WATCHED.join(", ")} ON transactions
      WHEN ${changed("IS NOT")} BEGIN
      ${add("OLD", "-")}
      ${add("NEW", "")}
      ${dropZero("OLD")}
      ${dropZero("NEW")}
    END`);
    await knex.raw(`CREATE TRIGGER wallet_month_totals_delete AFTER DELETE ON transactions BEGIN
      ${add("OLD", "-")}
      ${dropZero("OLD")}
    END`);
  }

  await knex.raw(`INSERT INTO wallet_month_totals (user_id, wallet_id, month, total_minor)
    SELECT user_id, wallet_id, substr(date, 1, 7), SUM(amount_minor) FROM transactions
     GROUP BY user_id, wallet_id, substr(date, 1, 7) HAVING SUM(amount_minor) <> 0`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  const pg = knex.client.config.client === "pg";
  for (const name of ["wallet_month_totals_truncate", "wallet_month_totals_delete", "wallet_month_totals_update", "wallet_month_totals_insert"]) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${name}${pg ? " ON transactions" : ""}`);
  }
  if (pg) {
    await knex.raw("DROP FUNCTION IF EXISTS wallet_month_totals_clear()");
    await knex.raw("DROP FUNCTION IF EXISTS wallet_month_totals_apply()");
  }
  await knex.schema.dropTableIfExists("wallet_month_totals");
}
