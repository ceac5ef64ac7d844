/**
 * The private calendar feed of a person's bill reminders (src/domain/bills/feed.ts): the feed URL holds a
 * secret, of which only a hash is stored (HMAC with TOKEN_PEPPER, like tokens). One live feed per user:
 * making a new URL revokes the old one; revoking keeps the row (revoked_at) so an old URL stays dead.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("calendar_feeds", (t) => {
    t.string("secret_hash", 64).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("created_at", 30).notNullable();
    t.string("revoked_at", 30);
    t.string("last_fetched_at", 30);
    t.index(["user_id", "revoked_at"], "calendar_feeds_user");
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("calendar_feeds");
}
