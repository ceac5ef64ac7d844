/**
 * previews_used: the preview ids a commit used (src/writes/preview.ts, docs/decisions.md#preview-ids), so a
 * preview commits once: a second commit with it is stale_preview, an undo that restores its rows included.
 * Keyed by the id's MAC (unique per user, tool, arguments and rows); a row is written by a commit only,
 * inside its transaction, never by a dry run, and purged once the id is past its lifetime (expires_at).
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("previews_used", (t) => {
    t.string("mac", 22).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("expires_at", 30).notNullable();
    t.index(["expires_at"], "previews_used_expiry");
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("previews_used");
}
