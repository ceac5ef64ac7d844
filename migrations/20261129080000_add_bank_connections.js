/**
 * Bank connections over the SimpleFIN protocol (issue 50; docs/history/bank-connections.md). One row per connection, holding
 * the Access URL sealed with AES-256-GCM (src/banks/credentials.ts), never in clear; one row per account
 * the bridge reported, linked to a wallet or skipped with the reason. A sync's transactions are written
 * through the import ledger (import_keys), so they are captured for undo there; these rows hold the
 * connection's state (last sync, the bridge's errors, when the next sync is due) and are not captured:
 * undoing a sync does not bring back a deleted credential, nor a sync's bookkeeping.
 * Deleting the account, the connection or the linked wallet deletes the rows (and so the credential).
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("bank_connections", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    // The bridge's host (shown to the person), never the Access URL.
    t.string("bridge", 255).notNullable();
    t.text("access_sealed").notNullable();
    // The first sync reads from this day (the window the person chose at connect).
    t.string("sync_from", 10).notNullable();
    // Unix seconds up to which the bridge's posted transactions were read; null before the first sync.
    t.bigInteger("synced_to").nullable();
    t.string("last_sync_at", 30).nullable();
    // ok | failed
    t.string("last_status", 10).nullable();
    // The bridge's own errors and ours, sanitised (JSON array of strings).
    t.text("last_errors").nullable();
    // When the scheduled sync is due; a process claims a run by moving it on (src/domain/banks/schedule.ts).
    t.string("next_sync_at", 30).notNullable();
    t.string("created_at", 30).notNullable();
    t.index(["user_id"], "bank_connections_user");
    t.index(["next_sync_at"], "bank_connections_due");
  });
  await knex.schema.createTable("bank_accounts", (t) => {
    t.string("connection_id", 40).notNullable().references("bank_connections.id").onDelete("CASCADE");
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("account_id", 255).notNullable();
    t.string("name", 255).notNullable();
    t.string("org", 255).nullable();
    // An ISO code, or the URL of a custom currency (skipped).
    t.string("currency", 255).notNullable();
    t.string("wallet_id", 40).nullable().references("wallets.id").onDelete("CASCADE");
    t.text("skip_reason").nullable();
    // The bridge's balance at balance_date, as last read (text, as the bridge sends it).
    t.string("balance", 40).nullable();
    // The balance before the first window (balance less the window's posted rows): a new wallet opens with it.
    t.string("opening", 40).nullable();
    t.bigInteger("balance_date").nullable();
    t.primary(["connection_id", "account_id"]);
    t.index(["user_id", "wallet_id"], "bank_accounts_wallet");
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("bank_accounts");
  await knex.schema.dropTableIfExists("bank_connections");
}
