/**
 * The benchmark's bulk seeding (scripts/bench/seed.ts) loads transactions with the triggers on them
 * dropped; afterwards the wallets' monthly totals, the transactions' tags_key and the expense totals
 * must be what the triggers would have made, and the triggers must be back and firing, so that the
 * benchmark measures the schema the migrations create.
 */
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { buildData } from "../../scripts/bench/data.js";
import { seedPostgres, seedSqlite } from "../../scripts/bench/seed.js";
import { createTestDatabase, engine } from "../helpers/database.js";

describe(`bench seeding (${engine})`, function () {
  this.timeout(120_000);

  it("rebuilds wallet_month_totals, tags_key, expense_day_totals and recurring_payees after the load and recreates the triggers", async () => {
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
        return Object.fromEntries(
          rows.filter((r) => BigInt(r.total) !== 0n).map((r) => [`${r.user_id}|${r.wallet_id}|${r.month}`, BigInt(r.total).toString()]),
        );
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

      // The expense totals, from the raw expenses and their tag rows.
      const expenseTotals = async () => {
        const tagsOf = new Map<string, string[]>();
        for (const g of await db("transaction_tags").select("transaction_id", "tag"))
          tagsOf.set(g.transaction_id, [...(tagsOf.get(g.transaction_id) ?? []), g.tag]);
        const sums = new Map<string, [bigint, bigint]>();
        for (const r of await db("transactions").where({ direction: "expense" })) {
          expect(JSON.parse(r.tags_key), `tags_key of ${r.id}`).to.deep.equal([...(tagsOf.get(r.id) ?? [])].sort());
          const k = `${r.user_id}|${r.date}|${r.currency}|${r.wallet_id}|${r.category_key ?? ""}|${r.tags_key}`;
          const [t, n] = sums.get(k) ?? [0n, 0n];
          sums.set(k, [t + BigInt(r.amount_minor), n + 1n]);
        }
        return Object.fromEntries([...sums].map(([k, [t, n]]) => [k, `${t}/${n}`]));
      };
      const storedExpenseTotals = async () =>
        Object.fromEntries(
          (await db("expense_day_totals")).map((r) => [
            `${r.user_id}|${r.date}|${r.currency}|${r.wallet_id}|${r.category_key}|${r.tags_key}`,
            `${BigInt(r.total_minor)}/${BigInt(r.row_count)}`,
          ]),
        );
      const expectedExpenses = await expenseTotals();
      expect(Object.keys(expectedExpenses).length).to.be.greaterThan(100);
      expect(Object.values(expectedExpenses).some((v) => !v.endsWith("/1"))).to.equal(true);
      expect(await storedExpenseTotals()).to.deep.equal(expectedExpenses);
      // Their triggers fire again too: a tag added to an expense moves it to another row of totals.
      const expense = await db("transactions").where({ user_id: fixture.mainUserId, direction: "expense", tags_key: "[]" }).first();
      await db("transaction_tags").insert({ transaction_id: expense.id, user_id: fixture.mainUserId, tag: "bench-seed-test" });
      expect(JSON.parse((await db("transactions").where({ id: expense.id }).first()).tags_key)).to.deep.equal(["bench-seed-test"]);
      expect(await storedExpenseTotals()).to.deep.equal(await expenseTotals());

      // The recurring payees' summary: one row per user and payee key, each its newest rows; the
      // triggers fire again (the row moved to 2030 above heads its payee's row).
      const keys = await db("transactions").whereNotNull("payee").distinct("user_id", db.raw("lower(payee) AS k"));
      expect(Number((await db("recurring_payees").count({ n: "*" }))[0]!.n)).to.equal(keys.length);
      const payeeOf = await db("recurring_payees").where({ user_id: fixture.mainUserId }).andWhereRaw("payee_key = lower(?)", [one.payee]).first("latest");
      if (one.payee !== null) expect((JSON.parse(payeeOf.latest) as string[][])[0]![1]).to.equal("2030-01-01");
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
