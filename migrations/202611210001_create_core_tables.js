/**
 * The tables of the whole service, with the same meaning on SQLite and Postgres.
 * Money: signed BIGINT minor units beside a 3-letter currency. Dates: 'YYYY-MM-DD' text; times: ISO-8601
 * UTC text. Ids: prefixed opaque strings. Every owned row has user_id, and every index that serves a
 * user's queries starts with it. Lists (tags of a budget, scopes of a token) are JSON text.
 */

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const pg = knex.client.config.client === "pg";
  const now = (t) => {
    t.string("created_at", 30).notNullable();
    t.string("updated_at", 30).notNullable();
  };

  await knex.schema.createTable("users", (t) => {
    t.string("id", 40).primary();
    t.string("email", 320).notNullable();
    t.string("email_normalized", 320).notNullable().unique();
    t.text("password_hash").notNullable();
    t.string("timezone", 64).notNullable().defaultTo("UTC");
    t.string("default_currency", 3).notNullable().defaultTo("USD");
    now(t);
  });

  await knex.schema.createTable("mcp_tokens", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("name", 100).notNullable();
    t.string("token_hash", 64).notNullable().unique();
    t.text("scopes").notNullable();
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.string("revoked_at", 30);
    t.string("last_used_at", 30);
    t.index(["user_id", "created_at"]);
  });

  await knex.schema.createTable("wallets", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("name", 100).notNullable();
    t.string("name_normalized", 100).notNullable();
    t.string("type", 20).notNullable();
    t.string("currency", 3).notNullable();
    t.bigInteger("opening_balance_minor").notNullable().defaultTo(0);
    t.string("opening_date", 10);
    t.boolean("archived").notNullable().defaultTo(false);
    t.text("notes");
    now(t);
    t.unique(["user_id", "name_normalized"]);
  });

  await knex.schema.createTable("transactions", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("wallet_id", 40).notNullable().references("wallets.id");
    t.string("date", 10).notNullable();
    t.bigInteger("amount_minor").notNullable();
    t.string("currency", 3).notNullable();
    t.string("direction", 10).notNullable();
    t.string("payee", 200);
    t.text("description");
    t.string("category", 100);
    t.text("notes");
    t.string("external_id", 200);
    t.string("transfer_id", 40);
    t.string("counterpart_wallet_id", 40);
    now(t);
    t.index(["user_id", "date", "id"], "transactions_user_date");
    t.index(["user_id", "wallet_id", "date"], "transactions_user_wallet_date");
    t.index(["user_id", "category", "date"], "transactions_user_category_date");
    t.index(["user_id", "transfer_id"], "transactions_user_transfer");
    t.unique(["wallet_id", "external_id"], { indexName: "transactions_wallet_external_id" });
  });

  await knex.schema.createTable("transaction_tags", (t) => {
    t.string("transaction_id", 40).notNullable().references("transactions.id").onDelete("CASCADE");
    t.string("user_id", 40).notNullable();
    t.string("tag", 40).notNullable();
    t.primary(["transaction_id", "tag"]);
    t.index(["user_id", "tag", "transaction_id"], "transaction_tags_user_tag");
  });

  await knex.schema.createTable("budgets", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("name", 100).notNullable();
    t.string("name_normalized", 100).notNullable();
    t.bigInteger("amount_minor").notNullable();
    t.string("currency", 3).notNullable();
    t.string("period", 10).notNullable();
    t.integer("interval").notNullable().defaultTo(1);
    t.string("anchor_date", 10).notNullable();
    t.text("categories").notNullable().defaultTo("[]");
    t.text("tags").notNullable().defaultTo("[]");
    t.text("wallet_ids").notNullable().defaultTo("[]");
    t.string("start_date", 10).notNullable();
    t.string("end_date", 10);
    t.string("rollover", 20).notNullable().defaultTo("none");
    t.integer("alert_threshold").notNullable().defaultTo(80);
    t.text("notes");
    now(t);
    t.unique(["user_id", "name_normalized"]);
  });

  await knex.schema.createTable("goals", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("name", 100).notNullable();
    t.string("name_normalized", 100).notNullable();
    t.bigInteger("target_minor");
    t.string("currency", 3).notNullable();
    t.string("target_date", 10);
    t.string("wallet_id", 40);
    t.string("status", 10).notNullable().defaultTo("active");
    t.string("achieved_at", 30);
    t.text("notes");
    now(t);
    t.unique(["user_id", "name_normalized"]);
  });

  await knex.schema.createTable("goal_contributions", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("goal_id", 40).notNullable().references("goals.id").onDelete("CASCADE");
    t.bigInteger("amount_minor").notNullable();
    t.string("date", 10).notNullable();
    t.text("note");
    t.string("transaction_id", 40);
    t.string("created_at", 30).notNullable();
    t.index(["user_id", "goal_id", "date"], "goal_contributions_user_goal_date");
  });

  await knex.schema.createTable("bill_reminders", (t) => {
    t.string("id", 40).primary();
    t.string("user_id", 40).notNullable().references("users.id").onDelete("CASCADE");
    t.string("name", 100).notNullable();
    t.string("payee", 200);
    t.bigInteger("amount_minor");
    t.bigInteger("amount_min_minor");
    t.bigInteger("amount_max_minor");
    t.string("currency", 3).notNullable();
    t.string("wallet_id", 40);
    t.string("category", 100);
    t.text("schedule").notNullable();
    t.text("rrule").notNullable();
    t.string("start_date", 10).notNullable();
    t.integer("notice_days").notNullable().defaultTo(3);
    t.boolean("autopay").notNullable().defaultTo(false);
    t.boolean("active").notNullable().defaultTo(true);
    t.text("notes");
    now(t);
    t.index(["user_id", "active"], "bill_reminders_user_active");
  });

  await knex.schema.createTable("kb_entries", (t) => {
    t.string("id", 120).primary();
    t.string("title", 300).notNullable();
    t.text("tags").notNullable().defaultTo("[]");
    t.text("body").notNullable();
    t.string("updated_at", 30).notNullable();
  });
  if (pg) {
    // Titles weigh most (A), tags next (B), bodies least (D): ts_rank's default weights follow the letters.
    await knex.raw(`ALTER TABLE kb_entries ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(tags, '')), 'B') ||
      setweight(to_tsvector('english', coalesce(body, '')), 'D')) STORED`);
    await knex.raw("CREATE INDEX kb_entries_search ON kb_entries USING GIN (search)");
  } else {
    await knex.raw("CREATE VIRTUAL TABLE kb_fts USING fts5(entry_id UNINDEXED, title, tags, body, tokenize = 'porter unicode61')");
  }

  await knex.schema.createTable("audit_log", (t) => {
    t.bigIncrements("id").primary();
    t.string("created_at", 30).notNullable();
    t.string("user_id", 40).notNullable();
    t.string("token_id", 40);
    t.string("tool", 60).notNullable();
    t.string("action", 30).notNullable();
    t.string("resource_type", 30).notNullable();
    t.string("resource_id", 40).notNullable();
    t.text("before_json");
    t.text("after_json");
    t.string("idempotency_key", 36).notNullable();
    t.string("request_id", 60).notNullable();
    t.index(["user_id", "id"], "audit_log_user_id");
  });
  if (pg) {
    await knex.raw(`CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP; END $$`);
    await knex.raw(`CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change()`);
    await knex.raw(`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()`);
  }

  await knex.schema.createTable("idempotency_keys", (t) => {
    t.string("user_id", 40).notNullable();
    t.string("key", 36).notNullable();
    t.string("tool", 60).notNullable();
    t.string("request_hash", 64).notNullable();
    t.text("response_json").notNullable();
    t.string("created_at", 30).notNullable();
    t.string("expires_at", 30).notNullable();
    t.primary(["user_id", "key"]);
    t.index(["expires_at"], "idempotency_keys_expires");
  });

  // The shape rate-limiter-flexible's Postgres and SQLite stores expect (created here, not by the library).
  await knex.schema.createTable("rate_limits", (t) => {
    t.string("key", 255).primary();
    t.integer("points").notNullable().defaultTo(0);
    t.bigInteger("expire");
  });
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  const pg = knex.client.config.client === "pg";
  await knex.schema.dropTableIfExists("rate_limits");
  await knex.schema.dropTableIfExists("idempotency_keys");
  if (pg) {
    await knex.raw("DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log");
    await knex.raw("DROP TRIGGER IF EXISTS audit_log_no_update_delete ON audit_log");
  }
  await knex.schema.dropTableIfExists("audit_log");
  if (pg) await knex.raw("DROP FUNCTION IF EXISTS audit_log_refuse_change()");
  if (!pg) await knex.raw("DROP TABLE IF EXISTS kb_fts");
  for (const table of [
    "kb_entries",
    "bill_reminders",
    "goal_contributions",
    "goals",
    "budgets",
    "transaction_tags",
    "transactions",
    "wallets",
    "mcp_tokens",
    "users",
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
