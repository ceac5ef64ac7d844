/**
 * undo_change over the audit's captured rows: a create, an update, a delete, a transfer and a goal
 * contribution (several rows each), an import_transactions and an update_transactions (many rows in one
 * change) are reversed exactly and as one change; the dry run
 * shows the reversal and changes nothing; a row changed since is refused with conflict naming the later
 * change; the undo is audited and itself undoable; a change is undone once (again: refused naming its
 * undo; its undo is refused naming a later change to its rows, even one that left them as the undo did);
 * only the user's own changes, with the area's scope.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { girokontoCsv } from "../../scripts/bench/statement.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();

/** Every row of the user's data (and the derived totals), to compare before and after exactly. */
async function snapshot(db: Knex, userId: string) {
  const out: Record<string, unknown[]> = {};
  for (const table of ["wallets", "transactions", "transaction_tags", "budgets", "goals", "goal_contributions", "bill_reminders", "import_keys", "wallet_month_totals", "expense_day_totals"]) {
    const rows = await db(table).where({ user_id: userId });
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])))).sort();
  }
  return out;
}

describe(`undo_change (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  let checking: string;
  let savings: string;
  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-11-25T12:00:00Z") });
    me = await server.createUser();
    checking = (await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", opening_balance: "100.00", idempotency_key: key() }, me.token)).wallet.id;
    savings = (await server.call("create_wallet", { name: "Savings", type: "savings", currency: "USD", idempotency_key: key() }, me.token)).wallet.id;
  });
  after(async () => server?.close());

  const undo = (auditId: string, extra: Record<string, unknown> = {}, token = me.token) =>
    server.call("undo_change", { audit_id: auditId, idempotency_key: key(), ...extra }, token);

  /** Makes a change, undoes it, and checks the data is exactly as before it. */
  async function roundTrip(make: () => Promise<{ audit_id: string }>) {
    const before = await snapshot(server.db, me.id);
    const made = await make();
    const afterMade = await snapshot(server.db, me.id);
    expect(afterMade).to.not.deep.equal(before);
    const preview = await undo(made.audit_id, { dry_run: true });
    expect(preview.status).to.equal("dry_run");
    expect(await snapshot(server.db, me.id)).to.deep.equal(afterMade);
    const done = await undo(made.audit_id);
    expect(done).to.deep.include({ status: "committed", rows: preview.rows, undone: preview.undone });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
    return { made, done, preview };
  }

  it("reverses a create, an update and a delete exactly (a delete comes back with the same id)", async () => {
    const { preview } = await roundTrip(() =>
      server.call("create_transaction", { wallet_id: checking, amount: "23.45", direction: "expense", payee: "dm", tags: ["household", "x"], idempotency_key: key() }, me.token),
    );
    expect(preview.rows.filter((r: any) => r.table === "transactions").map((r: any) => r.action)).to.deep.equal(["delete"]);
    const { transaction } = await server.call("create_transaction", { wallet_id: checking, amount: "10.00", direction: "expense", payee: "Cafe", category: "Food", tags: ["a"], idempotency_key: key() }, me.token);
    await roundTrip(() => server.call("update_transaction", { transaction_id: transaction.id, amount: "12.00", tags: ["b", "c"], category: "Treats", idempotency_key: key() }, me.token));
    const { done } = await roundTrip(() => server.call("delete_transaction", { transaction_id: transaction.id, idempotency_key: key() }, me.token));
    expect(done.rows).to.deep.include({ id: transaction.id, table: "transactions", action: "restore" });
    expect((await server.call("list_transactions", { wallet_id: checking }, me.token)).transactions.map((t: any) => t.id)).to.include(transaction.id);
  });

  it("reverses a transfer and a goal contribution (its transfer legs included) as one change each", async () => {
    await roundTrip(() => server.call("create_transaction", { wallet_id: checking, to_wallet_id: savings, amount: "40.00", direction: "transfer", idempotency_key: key() }, me.token));
    const { goal } = await server.call("create_goal", { name: "Trip", target_amount: "500.00", currency: "USD", wallet_id: savings, idempotency_key: key() }, me.token);
    const { preview } = await roundTrip(() => server.call("add_goal_funds", { goal_id: goal.id, amount: "25.00", from_wallet_id: checking, idempotency_key: key() }, me.token));
    expect(preview.rows.filter((r: any) => r.table === "transactions")).to.have.length(2);
    expect(preview.rows.filter((r: any) => r.table === "goal_contributions")).to.have.length(1);
  });

  it("reverses a real import and a real bulk edit as one change each; the import is refused while the edit of its rows stands", async () => {
    const giro = (await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id;
    const before = await snapshot(server.db, me.id);
    const imported = await server.call("import_transactions", { wallet_id: giro, statement: girokontoCsv(3), idempotency_key: key() }, me.token);
    expect(imported.counts.created).to.equal(3);
    const afterImport = await snapshot(server.db, me.id);
    const edited = await server.call("update_transactions", { filter: { wallet_id: giro }, expected_count: 3, set_category: "Utilities", add_tags: ["checked"], idempotency_key: key() }, me.token);
    expect(edited).to.deep.include({ matched: 3, changed: 3 });
    // The import cannot be undone while the bulk edit that changed its rows stands: conflict names it.
    const refused = await server.callError("undo_change", { audit_id: imported.audit_id, idempotency_key: key() }, me.token);
    expect(refused.data).to.include({ code: "conflict", field: "audit_id", existing_id: edited.audit_id });
    expect(refused.message).to.include(`change ${edited.audit_id}`);
    const undoneEdit = await undo(edited.audit_id);
    expect(undoneEdit.undone).to.deep.equal({ audit_id: edited.audit_id, tool: "update_transactions" });
    expect(undoneEdit.rows.filter((r: any) => r.table === "transactions").map((r: any) => r.action)).to.deep.equal(["revert", "revert", "revert"]);
    expect(await snapshot(server.db, me.id)).to.deep.equal(afterImport);
    const undoneImport = await undo(imported.audit_id);
    expect(undoneImport.undone).to.deep.equal({ audit_id: imported.audit_id, tool: "import_transactions" });
    expect(undoneImport.rows.filter((r: any) => r.table === "transactions").map((r: any) => r.action)).to.deep.equal(["delete", "delete", "delete"]);
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
  });

  it("refuses a change whose rows changed since, naming the later change; an undo is audited and can be undone", async () => {
    const { transaction } = await server.call("create_transaction", { wallet_id: checking, amount: "5.00", direction: "expense", payee: "Kiosk", idempotency_key: key() }, me.token);
    const created = (await server.call("list_changes", { limit: 1 }, me.token)).changes[0];
    const fixed = await server.call("update_transaction", { transaction_id: transaction.id, amount: "6.00", idempotency_key: key() }, me.token);
    const err = await server.callError("undo_change", { audit_id: created.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    expect(err.data).to.include({ code: "conflict", existing_id: fixed.audit_id });
    // Undo the fix, then the create; then undo that undo: the transaction is back.
    const undoFix = await undo(fixed.audit_id);
    expect((await server.call("list_changes", { audit_id: undoFix.audit_id }, me.token)).changes[0].tool).to.equal("undo_change");
    const undoCreate = await undo(created.audit_id);
    expect((await server.callError("undo_change", { audit_id: created.audit_id, idempotency_key: key() }, me.token)).data).to.include({ code: "conflict", existing_id: undoCreate.audit_id });
    await undo(undoCreate.audit_id);
    const back = await server.call("list_transactions", { wallet_id: checking, query: "Kiosk" }, me.token);
    expect(back.transactions.map((t: any) => [t.id, t.amount.value])).to.deep.equal([[transaction.id, transaction.amount.value]]);
  });

  it("undoes a change once: undoing it again is refused naming its undo, and undoing the undo is refused naming a later change to its rows", async () => {
    // The finding (issue 41): create, undo it (U1), undo U1 (U2), delete, then undo U1 again restored the row.
    const made = await server.call("create_transaction", { wallet_id: checking, amount: "7.00", direction: "expense", payee: "Twice", idempotency_key: key() }, me.token);
    const u1 = await undo(made.audit_id);
    const again = await server.callError("undo_change", { audit_id: made.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    expect(again.data).to.include({ code: "conflict", field: "audit_id", existing_id: u1.audit_id });
    expect(again.message).to.include(`already undone by change ${u1.audit_id}`);
    const u2 = await undo(u1.audit_id);
    // U1 is undone now too; the made change's undo chain ends at U2, the one that stands.
    expect((await server.callError("undo_change", { audit_id: u1.audit_id, idempotency_key: key() }, me.token)).data).to.include({ code: "conflict", existing_id: u2.audit_id });
    expect((await server.callError("undo_change", { audit_id: made.audit_id, idempotency_key: key() }, me.token)).data).to.include({ code: "conflict", existing_id: u2.audit_id });
    const deleted = await server.call("delete_transaction", { transaction_id: made.transaction.id, idempotency_key: key() }, me.token);
    // The row is gone, as U1 left it; still U1 is not undone again, and U2 (the way back) names the delete.
    expect((await server.callError("undo_change", { audit_id: u1.audit_id, idempotency_key: key() }, me.token)).data).to.include({ code: "conflict", existing_id: u2.audit_id });
    const back = await server.callError("undo_change", { audit_id: u2.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    expect(back.data).to.include({ code: "conflict", existing_id: deleted.audit_id });
    expect(back.message).to.include(`change ${deleted.audit_id}`);
    expect((await server.call("list_transactions", { wallet_id: checking, query: "Twice" }, me.token)).transactions).to.deep.equal([]);
    // Undoing the delete, then U2, is the way: the delete and its undo cancel out.
    await undo(deleted.audit_id);
    await undo(u2.audit_id);
    expect((await server.call("list_transactions", { wallet_id: checking, query: "Twice" }, me.token)).transactions).to.deep.equal([]);
  });

  it("refuses to take back a wallet that later records use, naming the change (a transaction in it, a goal kept in it)", async () => {
    const made = await server.call("create_wallet", { name: "Jar", type: "cash", currency: "USD", idempotency_key: key() }, me.token);
    const { goal, audit_id: goalAudit } = await server.call("create_goal", { name: "Jar goal", currency: "USD", wallet_id: made.wallet.id, idempotency_key: key() }, me.token);
    expect(goal.wallet_id).to.equal(made.wallet.id);
    const byGoal = await server.callError("undo_change", { audit_id: made.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    expect(byGoal.data).to.include({ code: "conflict", existing_id: goalAudit });
    await undo(goalAudit);
    const spent = await server.call("create_transaction", { wallet_id: made.wallet.id, amount: "1.00", direction: "expense", payee: "Jar", idempotency_key: key() }, me.token);
    const byTransaction = await server.callError("undo_change", { audit_id: made.audit_id, idempotency_key: key() }, me.token);
    expect(byTransaction.data).to.include({ code: "conflict", existing_id: spent.audit_id });
    await undo(spent.audit_id);
    await undo(made.audit_id);
    expect((await server.call("list_wallets", { include_archived: true }, me.token)).wallets.map((w: any) => w.name)).to.not.include("Jar");
  });

  it("undoes only the caller's own changes, with the write scope of the change's area", async () => {
    const { budget, audit_id } = await server.call("create_budget", { name: "Food", amount: "300.00", currency: "USD", period: "month", idempotency_key: key() }, me.token);
    expect(budget.id).to.be.a("string");
    const other = await server.createUser();
    expect((await server.callError("undo_change", { audit_id, idempotency_key: key() }, other.token)).data).to.include({ code: "not_found", field: "audit_id" });
    const txOnly = await me.tokenWith(["write:transactions"]);
    expect((await server.callError("undo_change", { audit_id, idempotency_key: key() }, txOnly)).data).to.include({ code: "insufficient_scope", scope: "write:budgets" });
    const both = await me.tokenWith(["write:transactions", "write:budgets"]);
    await server.call("undo_change", { audit_id, idempotency_key: key() }, both);
    expect((await server.call("list_budgets", {}, me.token)).budgets).to.deep.equal([]);
  });
});
