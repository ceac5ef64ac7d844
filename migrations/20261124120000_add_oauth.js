/**
 * OAuth 2.1 (issue 16): the clients that may ask for tokens, authorizations waiting for the person's
 * consent, authorization codes, and grants ("families") with their rotating refresh tokens.
 *
 * The access tokens an OAuth client receives are rows of mcp_tokens like any other token: one row per
 * grant, whose hash and expiry a refresh replaces. The new columns say which grant a row belongs to and
 * which resource (RFC 8707) it was issued for; both are null for static tokens, which every resource
 * of this server accepts. Secrets (codes, refresh tokens, client secrets) are stored as hashes only.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("oauth_clients", (t) => {
    t.string("id", 40).primary();
    // A generated id (Dynamic Client Registration) or the HTTPS URL of a Client ID Metadata Document.
    t.string("client_id", 2048).notNullable().unique();
    t.string("kind", 10).notNullable(); // "dcr" | "cimd"
    t.string("secret_hash", 64);
    // Registered (DCR) or fetched (CIMD) metadata: client_name, redirect_uris, grant_types, …
    t.text("metadata").notNullable();
    t.string("created_at", 30).notNullable();
    // CIMD: when the cached document must be fetched again.
    t.string("refresh_after", 30);
  });

  await knex.schema.createTable("oauth_pending", (t) => {
    t.string("id", 64).primary();
    t.string("client_id", 2048).notNullable();
    t.text("request").notNullable(); // redirect_uri, scopes, state, code_challenge, resource
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.index(["expires_at"]);
  });

  await knex.schema.createTable("oauth_grants", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("client_id", 2048).notNullable();
    t.text("scopes").notNullable();
    t.string("resource", 2048).notNullable();
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.string("revoked_at", 30);
    t.index(["user_id"]);
  });

  await knex.schema.createTable("oauth_codes", (t) => {
    t.string("code_hash", 64).primary();
    t.string("client_id", 2048).notNullable();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.text("request").notNullable(); // redirect_uri, scopes, code_challenge, resource
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.string("used_at", 30);
    // The grant its exchange created: a second exchange of the same code revokes it (RFC 6749 §4.1.2).
    t.string("grant_id", 40);
  });

  await knex.schema.createTable("oauth_refresh_tokens", (t) => {
    t.string("token_hash", 64).primary();
    t.string("grant_id", 40).notNullable().references("oauth_grants.id").onDelete("CASCADE");
    t.text("scopes").notNullable();
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.string("used_at", 30);
    t.index(["grant_id"]);
  });

  await knex.schema.alterTable("mcp_tokens", (t) => {
    t.string("grant_id", 40);
    t.string("resource", 2048);
    t.index(["grant_id"]);
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.alterTable("mcp_tokens", (t) => {
    t.dropIndex(["grant_id"]);
    t.dropColumn("grant_id");
    t.dropColumn("resource");
  });
  await knex.schema.dropTable("oauth_refresh_tokens");
  await knex.schema.dropTable("oauth_codes");
  await knex.schema.dropTable("oauth_grants");
  await knex.schema.dropTable("oauth_pending");
  await knex.schema.dropTable("oauth_clients");
}
