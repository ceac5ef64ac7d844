/**
 * mcp_sessions: what the client of one MCP session declared at its `initialize` (issue 39: support for
 * elicitation is remembered per session, never per token). The server names a session in the
 * initialize answer's Mcp-Session-Id header and the client sends it back on every request; two clients on
 * one token are two sessions, so neither's capabilities reach the other. Replaces client_capabilities
 * (one row per token, the last initialize winning): its rows cannot say which client they came from, so
 * they are dropped, not moved, and a client without a session is simply never asked.
 *
 * Rows go with their token (ON DELETE CASCADE) and are pruned per token at the next initialize when older
 * than the longest session a client keeps (src/mcp/client-capabilities.ts).
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("mcp_sessions", (t) => {
    t.string("id", 43).primary();
    t.string("token_id", 40).notNullable().references("mcp_tokens.id").onDelete("CASCADE");
    t.boolean("elicitation_form").notNullable();
    t.string("created_at", 30).notNullable();
    t.index(["token_id", "created_at"], "mcp_sessions_token_created");
  });
  await knex.schema.dropTableIfExists("client_capabilities");
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("mcp_sessions");
  await knex.schema.createTable("client_capabilities", (t) => {
    t.string("token_id", 40).primary().references("mcp_tokens.id").onDelete("CASCADE");
    t.boolean("elicitation_form").notNullable();
    t.string("declared_at", 30).notNullable();
  });
}
