/**
 * OAuth under attack (docs/oauth.md "Limits", "Refresh tokens"):
 * - oauth_clients.last_used_at: when the client last authorized, exchanged, refreshed or revoked; rows
 *   unused for CLIENT_IDLE_DAYS (src/oauth/clients.ts) are deleted;
 * - oauth_codes.replayed_at: a code presented again after its exchange, even while that exchange is still
 *   running, so the exchange refuses to create its grant (or the replay revokes the grant it made);
 * - oauth_grants.previous_refresh_hash / previous_refresh_used_at: the refresh token the last refresh
 *   used up, which a client that lost the answer may present again within the grace period.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.alterTable("oauth_clients", (t) => {
    t.string("last_used_at", 30);
  });
  await knex.schema.alterTable("oauth_codes", (t) => {
    t.string("replayed_at", 30);
  });
  await knex.schema.alterTable("oauth_grants", (t) => {
    t.string("previous_refresh_hash", 64);
    t.string("previous_refresh_used_at", 30);
    t.index(["client_id", "user_id"]);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("oauth_grants", (t) => {
    t.dropIndex(["client_id", "user_id"]);
    t.dropColumn("previous_refresh_hash");
    t.dropColumn("previous_refresh_used_at");
  });
  await knex.schema.alterTable("oauth_codes", (t) => {
    t.dropColumn("replayed_at");
  });
  await knex.schema.alterTable("oauth_clients", (t) => {
    t.dropColumn("last_used_at");
  });
}
