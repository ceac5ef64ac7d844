/**
 * One live calendar feed per person, held by the database: a partial unique index on user_id over the
 * rows not revoked (both engines support partial indexes). Concurrent requests for a new URL used to
 * leave several URLs live on Postgres (each transaction revoked the rows it saw, then inserted its own).
 * Rows already duplicated keep only the newest live one: the others are revoked, as a new URL would.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const now = new Date().toISOString();
  const live = await knex("calendar_feeds")
    .whereNull("revoked_at")
    .orderBy([{ column: "user_id" }, { column: "created_at", order: "desc" }, { column: "secret_hash", order: "desc" }])
    .select("user_id", "secret_hash");
  const seen = new Set();
  const older = [];
  for (const row of live) {
    if (seen.has(row.user_id)) older.push(row.secret_hash);
    else seen.add(row.user_id);
  }
  for (let i = 0; i < older.length; i += 500)
    await knex("calendar_feeds")
      .whereIn("secret_hash", older.slice(i, i + 500))
      .update({ revoked_at: now });
  await knex.raw("CREATE UNIQUE INDEX calendar_feeds_one_live ON calendar_feeds (user_id) WHERE revoked_at IS NULL");
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw("DROP INDEX calendar_feeds_one_live");
}
