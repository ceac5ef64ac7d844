/**
 * The benchmark's bulk seeding (scripts/bench/seed.ts) loads transactions with the triggers on them
 * dropped; afterwards the monthly totals must be what the triggers would have made, and the triggers
 * must be back and firing, so that the benchmark measures the schema the migrations create.
 */
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { buildData } from "../../scripts/bench/data.js";
import { seedPostgres, seedSqlite } from "../../scripts/bench/seed.js";
import { createTestDatabase, engine } from "../helpers/database.js";

describe(`bench seeding (${engine})`, function () {
  this.timeout(120_000);

  it("rebuilds wallet_month_totals after the load and recreates the triggers", async () => {
    const database = await createTestDatabase();
    const { fixture, tables } = buildData({
      scale: 3000,
      today: "2026-03-15",
      recentPerDay: 3,
      historyYears: 2,
      tokens: 2,
      otherUsers: 20,
      otherTransactions: 5,
      pepper: "",
      seed: 8,
    });
    if (engine === "postgres") await seedPostgres(database.url, tables);
    else await seedSqlite(database.url.slice("sqlite:".length), tables);
    const db = createDb(database.url);
    try {
      const recompute = async () => {
        const rows = (await db("transactions")
          .select("user_id", "wallet_id", db.raw("substr(date, 1, 7) AS month"))
          .sum({ total: "amount_minor" })
          .groupByRaw("user_id, wallet_id, substr(date, 1, 7)")) as unknown as { user_id: string; wallet_id: string; month: string; total: string | bigint }[];
        return Object.fromEntries(rows.filter((r) => BigInt(r.total) !== 0n).map((r) => [`${r.user_id}|${r.wallet_id}|${r.month}`, BigInt(r.total).toString()]));
      };
      const stored = async () =>
        Object.fromEntries((await db("wallet_month_totals")).map((r) => [`${r.user_id}|${r.wallet_id}|${r.month}`, BigInt(r.total_minor).toString()]));
      const expected = await recompute();
      expect(Object.keys(expected).length).to.be.greaterThan(20);
      expect(await stored()).to.deep.equal(expected);
      // The triggers fire again: a row moved to another month moves its amount with it.
      const one = await db("transactions").where({ user_id: fixture.mainUserId }).orderBy("date").first();
      await db("transactions").where({ id: one.id }).update({ date: "2030-01-01" });
      expect(await stored()).to.deep.equal(await recompute());
      expect(await db("wallet_month_totals").where({ user_id: fixture.mainUserId, month: "2030-01" })).to.have.length(1);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
