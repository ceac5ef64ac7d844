/** Pins the migrations: forward from empty, back to nothing with rollback --all, and forward again. */
import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest, rollbackAll } from "../../src/db/migrate.js";
import { createTestDatabase, engine } from "../helpers/database.js";

const TABLES = ["users", "mcp_tokens", "wallets", "transactions", "transaction_tags", "budgets", "goals", "goal_contributions", "bill_reminders", "kb_entries", "audit_log", "idempotency_keys", "rate_limits"];

describe(`migrations (${engine})`, () => {
  it("run forward from empty, back cleanly, and forward again", async () => {
    const database = await createTestDatabase();
    const db = createDb(database.url);
    try {
      await migrateLatest(db);
      for (const t of TABLES) expect(await db.schema.hasTable(t), t).to.equal(true);
      await rollbackAll(db);
      for (const t of TABLES) expect(await db.schema.hasTable(t), t).to.equal(false);
      await migrateLatest(db);
      expect(await db.schema.hasTable("audit_log")).to.equal(true);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it("run forward and back through the knex CLI (knexfile.js)", async function () {
    this.timeout(60_000);
    const database = await createTestDatabase();
    const db = createDb(database.url);
    const knexCli = (...args: string[]) =>
      spawnSync(process.execPath, ["node_modules/knex/bin/cli.js", ...args], { env: { ...process.env, DATABASE_URL: database.url }, encoding: "utf8" });
    try {
      const up = knexCli("migrate:latest");
      expect(up.status, up.stderr).to.equal(0);
      expect(await db.schema.hasTable("transactions")).to.equal(true);
      const down = knexCli("migrate:rollback", "--all");
      expect(down.status, down.stderr).to.equal(0);
      for (const t of TABLES) expect(await db.schema.hasTable(t), t).to.equal(false);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it("refuses UPDATE, DELETE and TRUNCATE of the audit log on Postgres", async function () {
    if (engine !== "postgres") this.skip();
    const database = await createTestDatabase();
    const db = createDb(database.url);
    try {
      await migrateLatest(db);
      await db("audit_log").insert({ created_at: "2026-01-01T00:00:00Z", user_id: "usr_x", tool: "t", action: "create", resource_type: "wallet", resource_id: "wal_x", idempotency_key: "k", request_id: "r" });
      for (const sql of ["UPDATE audit_log SET tool = 'x'", "DELETE FROM audit_log", "TRUNCATE audit_log"]) {
        let failed = false;
        await db.raw(sql).catch(() => (failed = true));
        expect(failed, sql).to.equal(true);
      }
      expect(Number((await db("audit_log").count({ n: "*" }))[0]!.n)).to.equal(1);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
