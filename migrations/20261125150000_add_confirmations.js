/**
 * Confirmation through the client (src/writes/confirm.ts, docs/protocol.md "Confirmation through the client"):
 *
 * client_capabilities: what the client holding a token declared at its last `initialize` (2025-06-18 and
 * 2025-11-25 declare capabilities only there, and the server keeps no session), so a later tools/call on
 * any process knows whether it may ask the person through elicitation/create. One row per token; the
 * last initialize wins.
 *
 * request_states_used: the nonce of every 2026-07-28 requestState that was answered, so a requestState
 * is good once (a replay is refused). Rows are kept until the state's expiry has passed.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable("client_capabilities", (t) => {
    t.string("token_id", 40).primary().references("mcp_tokens.id").onDelete("CASCADE");
    t.boolean("elicitation_form").notNullable();
    t.string("declared_at", 30).notNullable();
  });
  await knex.schema.createTable("request_states_used", (t) => {
    t.string("nonce", 43).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("expires_at", 30).notNullable();
    t.index(["expires_at"], "request_states_used_expiry");
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTableIfExists("request_states_used");
  await knex.schema.dropTableIfExists("client_capabilities");
}
