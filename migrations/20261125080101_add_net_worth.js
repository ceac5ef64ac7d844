/**
 * Net worth (src/domain/networth): whether a wallet counts toward it (wallets.in_net_worth, default
 * yes), and the exchange rates the person gives (exchange_rates: 1 base = rate quote on a date, one per
 * pair and day; the rate is a decimal string, never a float). Rates are only ever typed in by the
 * person through set_exchange_rate: nothing fetches them.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("wallets", (t) => {
    t.boolean("in_net_worth").notNullable().defaultTo(true);
  });
  await knex.schema.createTable("exchange_rates", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("base", 3).notNullable();
    t.string("quote", 3).notNullable();
    t.string("date", 10).notNullable();
    t.string("rate", 40).notNullable();
    t.string("created_at", 30).notNullable();
    t.string("updated_at", 30).notNullable();
    t.unique(["user_id", "base", "quote", "date"], { indexName: "exchange_rates_user_pair_date" });
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("exchange_rates");
  await knex.schema.alterTable("wallets", (t) => {
    t.dropColumn("in_net_worth");
  });
}
