/**
 * Postgres: every change of a token (revoked, expiry or scopes changed, deleted) and of what a verified
 * token carries from its user (time zone, default currency; the user deleted) sends
 * pg_notify('finance_tokens', <user id>). Each server process LISTENs on the connection its change bus
 * already holds (src/events/bus.ts) and drops that user's cached tokens (src/auth/token-cache.ts). A
 * trigger rather than a call in each code path: a revocation by the OAuth server, by /account, by a
 * cascade or by an operator's SQL notifies alike, and only once it commits (NOTIFY is transactional).
 * SQLite: nothing (one server process per file; the cache is off there).
 */
const FUNCTION = `
CREATE OR REPLACE FUNCTION finance_tokens_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('finance_tokens', COALESCE(NEW.id, OLD.id));
  ELSE
    PERFORM pg_notify('finance_tokens', COALESCE(NEW.user_id, OLD.user_id));
  END IF;
  RETURN NULL;
END $$`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(FUNCTION);
  // last_used_at is written once a minute per token in use: not a change of what the token may do.
  await knex.raw(`CREATE TRIGGER mcp_tokens_notify_update AFTER UPDATE ON mcp_tokens FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
       OR OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.user_id IS DISTINCT FROM NEW.user_id
       OR OLD.token_hash IS DISTINCT FROM NEW.token_hash OR OLD.resource IS DISTINCT FROM NEW.resource
       OR OLD.name IS DISTINCT FROM NEW.name OR OLD.grant_id IS DISTINCT FROM NEW.grant_id)
    EXECUTE FUNCTION finance_tokens_notify()`);
  await knex.raw(`CREATE TRIGGER mcp_tokens_notify_delete AFTER DELETE ON mcp_tokens FOR EACH ROW EXECUTE FUNCTION finance_tokens_notify()`);
  await knex.raw(`CREATE TRIGGER users_notify_update AFTER UPDATE ON users FOR EACH ROW
    WHEN (OLD.timezone IS DISTINCT FROM NEW.timezone OR OLD.default_currency IS DISTINCT FROM NEW.default_currency)
    EXECUTE FUNCTION finance_tokens_notify()`);
  await knex.raw(`CREATE TRIGGER users_notify_delete AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION finance_tokens_notify()`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  if (knex.client.config.client !== "pg") return;
  for (const [name, table] of [
    ["mcp_tokens_notify_update", "mcp_tokens"],
    ["mcp_tokens_notify_delete", "mcp_tokens"],
    ["users_notify_update", "users"],
    ["users_notify_delete", "users"],
  ])
    await knex.raw(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
  await knex.raw("DROP FUNCTION IF EXISTS finance_tokens_notify()");
}
