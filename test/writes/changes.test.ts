/**
 * Update and delete answers say what they change (`changes`: each changed field, before and after), the
 * same in a dry run, which changes nothing, and in the committed call; a delete names what goes. A replay
 * returns the stored first answer, and its text tells the model it is a replay and where to look for the
 * current state.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`changes in update and delete answers (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  let wallet: string;
  const key = () => randomUUID();

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
    user = await server.createUser();
    wallet = (await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", idempotency_key: key() }, user.token)).wallet.id;
  });
  after(async () => server?.close());

  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, params, user.token);

  /** Dry run, then commit: the same changes; the dry run changed nothing. */
  async function previewThenCommit(tool: string, params: Record<string, unknown>, read: () => Promise<unknown>) {
    const before = await read();
    const dry = await call(tool, { ...params, dry_run: true, idempotency_key: key() });
    expect(dry.status).to.equal("dry_run");
    expect(await read(), "a dry run changes nothing").to.deep.equal(before);
    const done = await call(tool, { ...params, idempotency_key: key() });
    expect(done.status).to.equal("committed");
    expect(done.changes).to.deep.equal(dry.changes);
    return done.changes as { field: string; before: unknown; after: unknown }[];
  }

  it("update_transaction: the changed fields only, with Money before and after", async () => {
    const { transaction } = await call("create_transaction", {
      wallet_id: wallet,
      amount: "12.40",
      direction: "expense",
      payee: "Cafe",
      category: "Lunch",
      date: "2026-03-14",
      idempotency_key: key(),
    });
    const read = async () => (await call("list_transactions", { wallet_id: wallet })).transactions;
    const changes = await previewThenCommit("update_transaction", { transaction_id: transaction.id, amount: "14.20", tags: ["work"], payee: "Cafe" }, read);
    expect(changes).to.deep.equal([
      { field: "amount", before: { value: "-12.40", currency: "USD", minor: -1240 }, after: { value: "-14.20", currency: "USD", minor: -1420 } },
      { field: "tags", before: [], after: ["work"] },
    ]);
  });

  it("update_wallet, update_budget, update_goal, update_bill_reminder: each names what changes", async () => {
    const w = (await call("create_wallet", { name: "Old name", type: "cash", currency: "USD", idempotency_key: key() })).wallet;
    expect(
      await previewThenCommit("update_wallet", { wallet_id: w.id, name: "New name", notes: "pocket" }, async () => (await call("list_wallets", {})).wallets),
    ).to.deep.equal([
      { field: "name", before: "Old name", after: "New name" },
      { field: "notes", before: null, after: "pocket" },
    ]);

    const b = (await call("create_budget", { name: "Food", amount: "300.00", currency: "USD", period: "month", idempotency_key: key() })).budget;
    const budgetChanges = await previewThenCommit(
      "update_budget",
      { budget_id: b.id, amount: "350.00", alert_threshold: 90 },
      async () => (await call("list_budgets", { include_status: false })).budgets,
    );
    expect(budgetChanges.map((c) => c.field)).to.deep.equal(["amount", "alert_threshold"]);
    expect(budgetChanges[1]).to.deep.equal({ field: "alert_threshold", before: 80, after: 90 });

    const g = (await call("create_goal", { name: "Trip", currency: "USD", target_amount: "1000.00", idempotency_key: key() })).goal;
    expect(
      await previewThenCommit("update_goal", { goal_id: g.id, target_date: "2026-12-31" }, async () => (await call("list_goals", {})).goals),
    ).to.deep.equal([{ field: "target_date", before: null, after: "2026-12-31" }]);

    const r = (
      await call("create_bill_reminder", {
        name: "Gym",
        amount: "30.00",
        currency: "USD",
        schedule: { frequency: "monthly", start_date: "2026-01-05", day_of_month: 5 },
        idempotency_key: key(),
      })
    ).bill_reminder;
    const billChanges = await previewThenCommit(
      "update_bill_reminder",
      { bill_reminder_id: r.id, active: false },
      async () => (await call("list_bill_reminders", {})).reminders,
    );
    expect(billChanges.find((c) => c.field === "active")).to.deep.equal({ field: "active", before: true, after: false });
  });

  it("a delete names the resource that goes, dry run and committed", async () => {
    const { transaction } = await call("create_transaction", { wallet_id: wallet, amount: "5.00", direction: "expense", idempotency_key: key() });
    const read = async () => (await call("list_transactions", { wallet_id: wallet })).transactions.map((t: { id: string }) => t.id);
    expect(await previewThenCommit("delete_transaction", { transaction_id: transaction.id }, read)).to.deep.equal([
      { field: "transaction", before: transaction.id, after: null },
    ]);
    expect(await read()).to.not.include(transaction.id);
  });

  it("delete_wallet, delete_budget, delete_goal, delete_bill_reminder name what goes, dry run and committed", async () => {
    const w = (await call("create_wallet", { name: "Spare", type: "cash", currency: "USD", idempotency_key: key() })).wallet.id;
    const b = (await call("create_budget", { name: "Fun", amount: "50.00", currency: "USD", period: "month", idempotency_key: key() })).budget.id;
    const g = (await call("create_goal", { name: "Bike", currency: "USD", idempotency_key: key() })).goal.id;
    const r = (
      await call("create_bill_reminder", {
        name: "Phone",
        amount: "20.00",
        currency: "USD",
        schedule: { frequency: "monthly", start_date: "2026-01-10" },
        idempotency_key: key(),
      })
    ).bill_reminder.id;
    const cases: [string, string, string, string, () => Promise<string[]>][] = [
      ["delete_wallet", "wallet_id", w, "wallet", async () => (await call("list_wallets", {})).wallets.map((x: { id: string }) => x.id)],
      ["delete_budget", "budget_id", b, "budget", async () => (await call("list_budgets", { include_status: false })).budgets.map((x: { id: string }) => x.id)],
      ["delete_goal", "goal_id", g, "goal", async () => (await call("list_goals", {})).goals.map((x: { id: string }) => x.id)],
      [
        "delete_bill_reminder",
        "bill_reminder_id",
        r,
        "bill_reminder",
        async () => (await call("list_bill_reminders", {})).reminders.map((x: { id: string }) => x.id),
      ],
    ];
    for (const [tool, param, id, field, read] of cases) {
      expect(await previewThenCommit(tool, { [param]: id }, read), tool).to.deep.equal([{ field, before: id, after: null }]);
      expect(await read(), tool).to.not.include(id);
    }
  });

  it("a write that is not an update or a delete carries no changes", async () => {
    const created = await call("create_transaction", { wallet_id: wallet, amount: "1.00", direction: "expense", idempotency_key: key() });
    expect(created).to.not.have.property("changes");
  });

  it("a replay answers the first answer, and its text says it is a replay and points to list_changes", async () => {
    const { transaction } = await call("create_transaction", { wallet_id: wallet, amount: "12.40", direction: "expense", idempotency_key: key() });
    const k = key();
    const args = { transaction_id: transaction.id, amount: "13.00", idempotency_key: k };
    const first = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "update_transaction", arguments: args } }, user.token);
    await call("update_transaction", { transaction_id: transaction.id, amount: "14.20", idempotency_key: key() });
    const again = await server.rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "update_transaction", arguments: args } }, user.token);
    expect(again.body.result.structuredContent).to.deep.equal({ ...first.body.result.structuredContent, status: "replayed" });
    expect(first.body.result.content[0].text).to.not.match(/Replayed/);
    expect(again.body.result.content[0].text).to.match(/^Replayed: .*nothing was changed now.*list_changes/);
  });
});
