/**
 * Goal funding is a move of money, not spending, over a ledger that holds both forms: contributions the
 * old add_goal_funds wrote (an expense, or an income for a withdrawal, on from_wallet_id), written here
 * as raw rows the way it wrote them, and contributions of today's (a transfer). After the migration
 * (20261124110000) neither get_transaction_summary nor get_budget_status counts any goal funding, balances
 * are what the new rule gives, running totals stay exact, and a second run changes nothing.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { migratorConfig } from "../../src/db/migrate.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const MIGRATION = { ...migratorConfig, name: "20261124110000_goal_funding_as_transfers.js" };

describe(`goal funding as transfers: the migration over a ledger of both forms (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  const ids: Record<string, string> = {};
  const key = () => randomUUID();
  const call = (tool: string, params: Record<string, unknown>) =>
    server.call(tool, { ...params, ...(tool.startsWith("get_") || tool.startsWith("list_") ? {} : { idempotency_key: key() }) }, user.token);
  const minor = (n: bigint) => (engine === "postgres" ? n.toString() : n);

  /** A contribution as the old add_goal_funds wrote it: the wallet transaction, then the contribution linked to it. */
  async function oldForm(goalId: string, walletId: string, amount: bigint, date: string, goalName: string) {
    const at = "2026-02-01T10:00:00.000Z";
    const txn = `txn_old${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    await server.db("transactions").insert({
      id: txn,
      user_id: user.id,
      wallet_id: walletId,
      date,
      amount_minor: minor(-amount),
      currency: "USD",
      direction: amount > 0n ? "expense" : "income",
      description: `${amount > 0n ? "Goal contribution" : "Goal withdrawal"}: ${goalName}`,
      created_at: at,
      updated_at: at,
    });
    await server.db("goal_contributions").insert({
      id: `gct_old${randomUUID().replace(/-/g, "").slice(0, 16)}`,
      user_id: user.id,
      goal_id: goalId,
      amount_minor: minor(amount),
      date,
      transaction_id: txn,
      from_wallet_id: walletId,
      created_at: at,
    });
    return txn;
  }

  const balances = async () => Object.fromEntries((await call("list_wallets", {})).wallets.map((w: any) => [w.name, w.balance.value]));
  const spentIn = async (from: string, to: string) =>
    (await call("get_transaction_summary", { date_from: from, date_to: to })).totals.map((t: any) => t.expenses.value);
  /** Running totals recomputed from the rows: what the triggers must have kept. */
  async function totalsAreExact() {
    const kept = await server.db("wallet_month_totals").where({ user_id: user.id }).orderBy(["wallet_id", "month"]).select("wallet_id", "month", "total_minor");
    const fresh = await server
      .db("transactions")
      .where({ user_id: user.id })
      .groupBy("wallet_id", server.db.raw("substr(date, 1, 7)"))
      .select("wallet_id", server.db.raw("substr(date, 1, 7) AS month"), server.db.raw("SUM(amount_minor) AS total_minor"))
      .orderBy(["wallet_id", "month"]);
    const norm = (rows: any[]) => rows.filter((r) => BigInt(r.total_minor) !== 0n).map((r) => [r.wallet_id, r.month, String(r.total_minor)]);
    expect(norm(kept)).to.deep.equal(norm(fresh));
    const expenses = await server.db("expense_day_totals").where({ user_id: user.id }).sum({ s: "total_minor" }).first();
    const rows = await server.db("transactions").where({ user_id: user.id, direction: "expense" }).sum({ s: "amount_minor" }).first();
    expect(String(expenses?.s ?? 0)).to.equal(String(rows?.s ?? 0));
  }

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-02-20T12:00:00Z") });
    user = await server.createUser();
    const wallet = async (name: string) =>
      (await call("create_wallet", { name, type: "checking", currency: "USD", opening_balance: "1000.00", opening_date: "2026-01-01" })).wallet.id as string;
    ids.checking = await wallet("Checking");
    ids.savings = await wallet("Savings");
    ids.trip = (await call("create_goal", { name: "Trip", currency: "USD", wallet_id: ids.savings })).goal.id;
    ids.car = (await call("create_goal", { name: "Car", currency: "USD" })).goal.id;
    ids.own = (await call("create_goal", { name: "Rainy day", currency: "USD", wallet_id: ids.checking })).goal.id;
    ids.budget = (
      await call("create_budget", { name: "All spending", amount: "5000.00", currency: "USD", period: "month", start_date: "2026-01-01" })
    ).budget.id;
    await call("create_transaction", { wallet_id: ids.checking, amount: "40.00", direction: "expense", category: "Food", date: "2026-02-03" });

    // The old form: a goal kept in Savings funded from Checking (and a withdrawal back), a goal with no
    // wallet funded from Checking, a goal kept in Checking funded from Checking.
    ids.oldTrip = await oldForm(ids.trip!, ids.checking!, 25000n, "2026-02-05", "Trip");
    ids.oldTripBack = await oldForm(ids.trip!, ids.checking!, -5000n, "2026-02-06", "Trip");
    ids.oldCar = await oldForm(ids.car!, ids.checking!, 10000n, "2026-02-07", "Car");
    ids.oldOwn = await oldForm(ids.own!, ids.checking!, 3000n, "2026-02-08", "Rainy day");
    // The new form, written by today's tool.
    await call("add_goal_funds", { goal_id: ids.trip, amount: "100.00", from_wallet_id: ids.checking, date: "2026-02-09" });
  });
  after(async () => server?.close());

  it("before the migration, the old form counts as spending (the defect)", async () => {
    expect(await spentIn("2026-02-01", "2026-02-28")).to.deep.equal(["420.00"]); // 40 + 250 + 100 + 30
    await totalsAreExact();
  });

  it("after it, no goal funding counts as spending or against a budget, and balances follow the new rule", async () => {
    await server.db.migrate.down(MIGRATION);
    await server.db.migrate.up(MIGRATION);
    expect(await spentIn("2026-02-01", "2026-02-28")).to.deep.equal(["40.00"]);
    const status = (await call("get_budget_status", { budget_id: ids.budget, as_of: "2026-02-20" })).budgets[0];
    expect(status.spent.value).to.equal("40.00");
    // Checking: 1000 − 40 − 250 + 50 (withdrawal back) − 100 (today's transfer); the car's and the rainy
    // day's old expenses are gone (no money moved between wallets the ledger knows). Savings receives the
    // trip's money: 1000 + 250 − 50 + 100.
    expect(await balances()).to.deep.equal({ Checking: "660.00", Savings: "1300.00" });
    await totalsAreExact();
  });

  it("rewrites each old contribution into the form today's tool writes", async () => {
    const trip = await server.db("transactions").where({ id: ids.oldTrip }).first();
    expect(trip).to.include({ direction: "transfer", counterpart_wallet_id: ids.savings });
    const legs = await server.db("transactions").where({ transfer_id: trip.transfer_id }).orderBy("wallet_id");
    expect(legs.map((l: any) => [l.wallet_id, String(l.amount_minor)]).sort()).to.deep.equal(
      [
        [ids.checking, "-25000"],
        [ids.savings, "25000"],
      ].sort(),
    );
    const back = await server.db("transactions").where({ id: ids.oldTripBack }).first();
    expect(back).to.include({ direction: "transfer", counterpart_wallet_id: ids.savings });
    for (const gone of [ids.oldCar, ids.oldOwn]) expect(await server.db("transactions").where({ id: gone }).first()).to.equal(undefined);
    const car = await server.db("goal_contributions").where({ goal_id: ids.car }).first();
    expect(car).to.include({ transaction_id: null, from_wallet_id: ids.checking });
    // The goals' saved amounts never depended on the transactions.
    const progress = await call("get_goal_progress", { goal_id: ids.trip });
    expect(progress.goals[0].saved.value).to.equal("300.00");
  });

  it("a second run changes nothing", async () => {
    const before = await server.db("transactions").where({ user_id: user.id }).orderBy("id");
    await server.db.migrate.down(MIGRATION);
    await server.db.migrate.up(MIGRATION);
    expect(await server.db("transactions").where({ user_id: user.id }).orderBy("id")).to.deep.equal(before);
  });
});
