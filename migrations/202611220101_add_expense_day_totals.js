/**
 * expense_day_totals: the expenses of a user per day, currency, wallet, category and set of tags, as
 * SUM(amount_minor) and COUNT(*), so that a budget's spending (get_budget_status, list_budgets and the
 * over-limit check of every expense written) adds up a few totals per day instead of reading each
 * transaction and looking up its tags (docs/budgets-goals-bills.md, "Spending totals").
 *
 * A budget's scope is "currency, and category one of C, and at least one tag of T, and wallet one of W".
 * Keying the totals by the transaction's whole set of tags (tags_key, a JSON array of its folded tags,
 * sorted) keeps "at least one of" exact: a row of totals either has one of the budget's tags or not, and
 * a transaction with two of them is still counted once. Per-tag totals could not tell that apart.
 *
 * Kept by triggers, like wallet_month_totals (202611220001), so that every write path — the tools, tests
 * writing rows in SQL, a user's ON DELETE CASCADE — keeps them in the same transaction as the change:
 * - transactions.tags_key follows transaction_tags (a trigger per insert/update/delete of a tag row
 *   recomputes it; once the transaction row is gone, as in a cascade, the recomputation finds no row);
 * - the totals follow transactions: an expense inserted adds itself, deleted takes itself out, updated in
 *   any keyed column (tags_key included) moves itself. A total whose count reaches zero is deleted.
 * category_key is stored as '' for an uncategorised expense: key columns cannot be NULL on Postgres, and
 * a budget's categories are never empty strings, so '' never matches a category scope.
 *
 * On Postgres the unique key uses md5(tags_key): a transaction may carry 20 tags of 40 characters, which
 * as text could pass the 2.7 kB a btree entry may hold.
 *
 * The migration fills tags_key and the totals from the rows already there. The benchmark's bulk seeding
 * (scripts/bench/seed.ts) drops the triggers around its load and rebuilds both the same way.
 */

/** The columns whose change moves an expense between totals. */
const KEYED = ["user_id", "date", "currency", "wallet_id", "category_key", "tags_key", "direction", "amount_minor"];
const KEY = ["user_id", "date", "currency", "wallet_id", "category_key", "tags_key"];

/** The JSON array of a transaction's folded tags, sorted ('[]' when it has none). */
export function tagsKeySql(pg, transactionId) {
  return pg
    ? `COALESCE((SELECT json_agg(g.tag ORDER BY g.tag)::text FROM transaction_tags g WHERE g.transaction_id = ${transactionId}), '[]')`
    : `(SELECT json_group_array(g.tag ORDER BY g.tag) FROM transaction_tags g WHERE g.transaction_id = ${transactionId})`;
}

/** Fills tags_key of every tagged transaction (the others keep the column's default '[]'). */
export function backfillTagsKeySql(pg) {
  return `UPDATE transactions SET tags_key = ${tagsKeySql(pg, "transactions.id")}
    WHERE id IN (SELECT transaction_id FROM transaction_tags)`;
}

/** Rebuilds the totals from scratch (an empty table is expected). */
export const BACKFILL_TOTALS_SQL = `INSERT INTO expense_day_totals (${KEY.join(", ")}, total_minor, row_count)
  SELECT user_id, date, currency, wallet_id, COALESCE(category_key, ''), tags_key, SUM(amount_minor), COUNT(*)
    FROM transactions WHERE direction = 'expense'
   GROUP BY user_id, date, currency, wallet_id, COALESCE(category_key, ''), tags_key`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.schema.alterTable("transactions", (t) => {
    t.text("tags_key").notNullable().defaultTo("[]");
  });
  await knex.raw(backfillTagsKeySql(pg));

  await knex.schema.createTable("expense_day_totals", (t) => {
    t.string("user_id", 40).notNullable();
    t.string("date", 10).notNullable();
    t.string("currency", 3).notNullable();
    t.string("wallet_id", 40).notNullable();
    t.string("category_key", 255).notNullable();
    t.text("tags_key").notNullable();
    // Negative, like the expenses' amount_minor it sums.
    t.bigInteger("total_minor").notNullable();
    t.bigInteger("row_count").notNullable();
    if (!pg) t.primary(KEY);
  });
  if (pg) {
    await knex.raw(`CREATE UNIQUE INDEX expense_day_totals_key ON expense_day_totals (user_id, date, currency, wallet_id, category_key, md5(tags_key))`);
  }
  await knex.raw(BACKFILL_TOTALS_SQL);

  if (pg) {
    const conflict =
      "ON CONFLICT (user_id, date, currency, wallet_id, category_key, md5(tags_key)) DO UPDATE SET total_minor = e.total_minor + EXCLUDED.total_minor, row_count = e.row_count + EXCLUDED.row_count";
    const add = (row, sign) => `INSERT INTO expense_day_totals AS e (${KEY.join(", ")}, total_minor, row_count)
            VALUES (${row}.user_id, ${row}.date, ${row}.currency, ${row}.wallet_id, COALESCE(${row}.category_key, ''), ${row}.tags_key, ${sign}${row}.amount_minor, ${sign}1)
            ${conflict};
          DELETE FROM expense_day_totals WHERE user_id = ${row}.user_id AND date = ${row}.date AND currency = ${row}.currency
            AND wallet_id = ${row}.wallet_id AND category_key = COALESCE(${row}.category_key, '') AND md5(tags_key) = md5(${row}.tags_key) AND row_count = 0;`;
    await knex.raw(`CREATE FUNCTION expense_day_totals_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.direction = 'expense' THEN
          ${add("OLD", "-")}
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.direction = 'expense' THEN
          ${add("NEW", "")}
        END IF;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE FUNCTION expense_day_totals_clear() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM expense_day_totals; RETURN NULL; END $$`);
    await knex.raw(`CREATE FUNCTION transactions_tags_key_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE transactions SET tags_key = ${tagsKeySql(true, "OLD.transaction_id")} WHERE id = OLD.transaction_id;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          UPDATE transactions SET tags_key = ${tagsKeySql(true, "NEW.transaction_id")} WHERE id = NEW.transaction_id;
        END IF;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE TRIGGER expense_day_totals_insert AFTER INSERT ON transactions
      FOR EACH ROW WHEN (NEW.direction = 'expense') EXECUTE FUNCTION expense_day_totals_apply()`);
    await knex.raw(`CREATE TRIGGER expense_day_totals_update AFTER UPDATE OF ${KEYED.join(", ")} ON transactions
      FOR EACH ROW WHEN ((OLD.direction = 'expense' OR NEW.direction = 'expense') AND (${KEYED.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(" OR ")}))
      EXECUTE FUNCTION expense_day_totals_apply()`);
    await knex.raw(`CREATE TRIGGER expense_day_totals_delete AFTER DELETE ON transactions
      FOR EACH ROW WHEN (OLD.direction = 'expense') EXECUTE FUNCTION expense_day_totals_apply()`);
    await knex.raw(`CREATE TRIGGER expense_day_totals_truncate AFTER TRUNCATE ON transactions
      FOR EACH STATEMENT EXECUTE FUNCTION expense_day_totals_clear()`);
    await knex.raw(`CREATE TRIGGER transactions_tags_key_insert AFTER INSERT ON transaction_tags
      FOR EACH ROW EXECUTE FUNCTION transactions_tags_key_follow()`);
    await knex.raw(`CREATE TRIGGER transactions_tags_key_update AFTER UPDATE ON transaction_tags
      FOR EACH ROW EXECUTE FUNCTION transactions_tags_key_follow()`);
    await knex.raw(`CREATE TRIGGER transactions_tags_key_delete AFTER DELETE ON transaction_tags
      FOR EACH ROW EXECUTE FUNCTION transactions_tags_key_follow()`);
  } else {
    // INSERT … SELECT … WHERE: the WHERE both skips a non-expense side and keeps SQLite's parser from
    // reading ON CONFLICT as a join constraint.
    const add = (row, sign) => `INSERT INTO expense_day_totals (${KEY.join(", ")}, total_minor, row_count)
        SELECT ${row}.user_id, ${row}.date, ${row}.currency, ${row}.wallet_id, COALESCE(${row}.category_key, ''), ${row}.tags_key, ${sign}${row}.amount_minor, ${sign}1
         WHERE ${row}.direction = 'expense'
        ON CONFLICT (${KEY.join(", ")}) DO UPDATE SET total_minor = total_minor + excluded.total_minor, row_count = row_count + excluded.row_count;`;
    const dropEmpty = (row) => `DELETE FROM expense_day_totals WHERE user_id = ${row}.user_id AND date = ${row}.date AND currency = ${row}.currency
        AND wallet_id = ${row}.wallet_id AND category_key = COALESCE(${row}.category_key, '') AND tags_key = ${row}.tags_key AND row_count = 0;`;
    await knex.raw(`CREATE TRIGGER expense_day_totals_insert AFTER INSERT ON transactions WHEN NEW.direction = 'expense' BEGIN
      ${add("NEW", "")}
    END`);
    await knex.raw(`CREATE TRIGGER expense_day_totals_update AFTER UPDATE OF ${KEYED.join(", ")} ON transactions
      WHEN (OLD.direction = 'expense' OR NEW.direction = 'expense') AND (${KEYED.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(" OR ")}) BEGIN
      ${add("OLD", "-")}
      ${add("NEW", "")}
      ${dropEmpty("OLD")}
    END`);
    await knex.raw(`CREATE TRIGGER expense_day_totals_delete AFTER DELETE ON transactions WHEN OLD.direction = 'expense' BEGIN
      ${add("OLD", "-")}
      ${dropEmpty("OLD")}
    END`);
    const follow = (row) => `UPDATE transactions SET tags_key = ${tagsKeySql(false, `${row}.transaction_id`)} WHERE id = ${row}.transaction_id;`;
    await knex.raw(`CREATE TRIGGER transactions_tags_key_insert AFTER INSERT ON transaction_tags BEGIN ${follow("NEW")} END`);
    await knex.raw(`CREATE TRIGGER transactions_tags_key_update AFTER UPDATE ON transaction_tags BEGIN ${follow("OLD")} ${follow("NEW")} END`);
    await knex.raw(`CREATE TRIGGER transactions_tags_key_delete AFTER DELETE ON transaction_tags BEGIN ${follow("OLD")} END`);
  }
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  const pg = knex.client.config.client === "pg";
  for (const [name, table] of [
    ["transactions_tags_key_delete", "transaction_tags"],
    ["transactions_tags_key_update", "transaction_tags"],
    ["transactions_tags_key_insert", "transaction_tags"],
    ["expense_day_totals_truncate", "transactions"],
    ["expense_day_totals_delete", "transactions"],
    ["expense_day_totals_update", "transactions"],
    ["expense_day_totals_insert", "transactions"],
  ]) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${name}${pg ? ` ON ${table}` : ""}`);
  }
  if (pg) {
    for (const fn of ["transactions_tags_key_follow", "expense_day_totals_clear", "expense_day_totals_apply"])
      await knex.raw(`DROP FUNCTION IF EXISTS ${fn}()`);
  }
  await knex.schema.dropTableIfExists("expense_day_totals");
  await knex.raw("ALTER TABLE transactions DROP COLUMN tags_key");
}
