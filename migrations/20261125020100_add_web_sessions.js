/**
 * Web sessions kept on the server, and the server's own secrets (docs/security.md, "Web sessions").
 *
 * server_secrets: random keys the server generates once and every process over the database shares; the
 * first process to start inserts the row, a concurrent one keeps the row that won (src/web/secret.ts).
 * Today it holds the key that signs session cookies and CSRF fields ("web"), unless SESSION_SECRET is set.
 *
 * web_sessions: one row per signed-in browser. The cookie carries a random id; only its SHA-256 is
 * stored, so a copy of the table signs no one in. The row, not the cookie, says when the session ends:
 * expires_at (absolute) and last_used_at (idle). Signing out deletes the row, so a copied cookie dies too.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("server_secrets", (t) => {
    t.string("name", 40).primary();
    t.string("value", 128).notNullable();
    t.string("created_at", 30).notNullable();
  });

  await knex.schema.createTable("web_sessions", (t) => {
    t.string("id_hash", 64).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.string("last_used_at", 30).notNullable();
    t.index(["user_id"]);
    t.index(["expires_at"]);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("web_sessions");
  await knex.schema.dropTableIfExists("server_secrets");
}
