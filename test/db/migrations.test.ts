/** Pins the migrations: forward from empty, back to nothing with rollback --all, and forward again. */
import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest, migratorConfig, rollbackAll } from "../../src/db/migrate.js";
import { dropRowCapture } from "../../src/db/row-capture.js";
import { createTestDatabase, migratedTestDatabase, engine } from "../helpers/database.js";

const TABLES = [
  "users",
  "mcp_tokens",
  "wallets",
  "transactions",
  "transaction_tags",
  "budgets",
  "goals",
  "goal_contributions",
  "bill_reminders",
  "kb_entries",
  "audit_log",
  "idempotency_keys",
  "rate_limits",
  "wallet_month_totals",
  "expense_day_totals",
];

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

  it("fills wallet_month_totals from the rows already there, and its down() leaves transactions writable", async () => {
    const database = await migratedTestDatabase();
    const db = createDb(database.url);
    try {
      // By name, so that later migrations do not change what this test undoes.
      const totalsMigration = { ...migratorConfig, name: "202611220001_add_wallet_month_totals.js" };
      const [, undone] = await db.migrate.down(totalsMigration);
      expect(undone).to.deep.equal(["202611220001_add_wallet_month_totals.js"]);
      expect(await db.schema.hasTable("wallet_month_totals")).to.equal(false);
      const at = "2026-01-01T00:00:00Z";
      const minor = (n: bigint) => (engine === "postgres" ? n.toString() : n);
      for (const u of ["usr_a", "usr_b"]) {
        await db("users").insert({ id: u, email: `${u}@x.test`, email_normalized: `${u}@x.test`, password_hash: "x", created_at: at, updated_at: at });
        await db("wallets").insert({
          id: `wal_${u}`,
          user_id: u,
          name: "W",
          name_normalized: "w",
          type: "cash",
          currency: "USD",
          created_at: at,
          updated_at: at,
        });
      }
      // With the triggers gone, writes to transactions must still work (no trigger left pointing at a dropped table).
      const rows: [string, string, string, bigint][] = [
        ["usr_a", "t1", "2025-12-31", 9007199254740993n],
        ["usr_a", "t2", "2025-12-01", 9007199254740993n],
        ["usr_a", "t3", "2026-01-01", -250n],
        ["usr_a", "t4", "2026-01-31", 250n], // January sums to zero: no row
        ["usr_a", "t5", "2026-02-15", -1n],
        ["usr_b", "t6", "2026-02-15", 42n],
      ];
      for (const [u, id, date, amount] of rows) {
        await db("transactions").insert({
          id,
          user_id: u,
          wallet_id: `wal_${u}`,
          date,
          amount_minor: minor(amount),
          currency: "USD",
          direction: amount < 0n ? "expense" : "income",
          created_at: at,
          updated_at: at,
        });
      }
      await db("transactions")
        .where({ id: "t5" })
        .update({ amount_minor: minor(-2n) });
      await db.migrate.up(totalsMigration);
      const totals = (await db("wallet_month_totals").orderBy(["user_id", "month"])).map((r) => [r.user_id, r.wallet_id, r.month, BigInt(r.total_minor)]);
      expect(totals).to.deep.equal([
        ["usr_a", "wal_usr_a", "2025-12", 18014398509481986n],
        ["usr_a", "wal_usr_a", "2026-02", -2n],
        ["usr_b", "wal_usr_b", "2026-02", 42n],
      ]);
      // And the triggers are back.
      await db("transactions").where({ id: "t6" }).delete();
      expect(await db("wallet_month_totals").where({ user_id: "usr_b" })).to.have.length(0);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it("fills tags_key and expense_day_totals from the rows already there, and its down() leaves the ledger writable", async () => {
    const database = await migratedTestDatabase();
    const db = createDb(database.url);
    try {
      const totalsMigration = { ...migratorConfig, name: "202611220101_add_expense_day_totals.js" };
      // SQLite's capture triggers name tags_key, which this down() drops: off first, as rollbackAll does.
      await dropRowCapture(db);
      const [, undone] = await db.migrate.down(totalsMigration);
      expect(undone).to.deep.equal(["202611220101_add_expense_day_totals.js"]);
      expect(await db.schema.hasTable("expense_day_totals")).to.equal(false);
      expect(await db.schema.hasColumn("transactions", "tags_key")).to.equal(false);
      const at = "2026-01-01T00:00:00Z";
      const minor = (n: bigint) => (engine === "postgres" ? n.toString() : n);
      await db("users").insert({ id: "usr_a", email: "a@x.test", email_normalized: "a@x.test", password_hash: "x", created_at: at, updated_at: at });
      await db("wallets").insert({
        id: "wal_a",
        user_id: "usr_a",
        name: "W",
        name_normalized: "w",
        type: "cash",
        currency: "USD",
        created_at: at,
        updated_at: at,
      });
      const rows: [string, string, bigint, string | null, string[]][] = [
        ["t1", "2026-01-05", -9007199254740993n, "dining", ["trip", "coffee"]],
        ["t2", "2026-01-05", -7n, "dining", ["coffee", "trip"]],
        ["t3", "2026-01-05", -1n, null, []],
        ["t4", "2026-01-05", 500n, "dining", ["trip"]], // income: not in the totals
        ["t5", "2026-01-06", -2n, "dining", ["trip"]],
      ];
      for (const [id, date, amount, category, tags] of rows) {
        await db("transactions").insert({
          id,
          user_id: "usr_a",
          wallet_id: "wal_a",
          date,
          amount_minor: minor(amount),
          currency: "USD",
          direction: amount < 0n ? "expense" : "income",
          category,
          category_key: category,
          created_at: at,
          updated_at: at,
        });
        for (const tag of tags) await db("transaction_tags").insert({ transaction_id: id, user_id: "usr_a", tag });
      }
      await db.migrate.up(totalsMigration);
      const totals = (await db("expense_day_totals").orderBy(["date", "category_key", "total_minor"])).map((r) => [
        r.date,
        r.category_key,
        JSON.parse(r.tags_key),
        BigInt(r.total_minor),
        BigInt(r.row_count),
      ]);
      expect(totals).to.deep.equal([
        ["2026-01-05", "", [], -1n, 1n],
        ["2026-01-05", "dining", ["coffee", "trip"], -9007199254741000n, 2n],
        ["2026-01-06", "dining", ["trip"], -2n, 1n],
      ]);
      expect(JSON.parse((await db("transactions").where({ id: "t4" }).first()).tags_key)).to.deep.equal(["trip"]);
      // And the triggers are back.
      await db("transaction_tags").where({ transaction_id: "t5" }).delete();
      expect((await db("expense_day_totals").where({ date: "2026-01-06" })).map((r) => JSON.parse(r.tags_key))).to.deep.equal([[]]);
      // down() takes the triggers with it: the ledger stays writable.
      await db.migrate.down(totalsMigration);
      await db("transaction_tags").insert({ transaction_id: "t3", user_id: "usr_a", tag: "x" });
      await db("transactions")
        .where({ id: "t3" })
        .update({ amount_minor: minor(-3n) });
      await db("transactions").where({ id: "t1" }).delete();
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it("refuses UPDATE, DELETE and TRUNCATE of the audit log on Postgres", async function () {
    if (engine !== "postgres") this.skip();
    const database = await migratedTestDatabase();
    const db = createDb(database.url);
    try {
      await db("audit_log").insert({
        created_at: "2026-01-01T00:00:00Z",
        user_id: "usr_x",
        tool: "t",
        action: "create",
        resource_type: "wallet",
        resource_id: "wal_x",
        idempotency_key: "k",
        request_id: "r",
      });
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
