/**
 * No dangling links (issue 39, item 3): deleting an expense that was refunded is refused, naming the
 * refunds, until `refunds` says what becomes of them; the dry run and the answer name them; "keep" leaves
 * them as plain income (no refund_of, not taken off spending), "delete" takes them along; undo_change
 * restores the expense and the links. Another user's rows never move. Runs on SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();

describe(`delete_transaction and its refunds (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let me: TestUser;
  let wallet: string;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-20T12:00:00Z") });
    me = await server.createUser({ timezone: "UTC" });
    wallet = (await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id;
  });
  after(async () => server?.close());

  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: key(), ...params }, me.token);
  const row = (id: string) => server.db("transactions").where({ id }).first();
  /** An IKEA purchase and the flatmate's refund of part of it. */
  async function ikea() {
    const purchase = (
      await call("create_transaction", { wallet_id: wallet, date: "2026-03-02", amount: "139.99", direction: "expense", payee: "IKEA", category: "Home" })
    ).transaction;
    const refund = (
      await call("create_transaction", {
        wallet_id: wallet,
        date: "2026-03-05",
        amount: "60.00",
        direction: "income",
        payee: "Flatmate",
        refund_of: purchase.id,
      })
    ).transaction;
    expect(refund).to.deep.include({ refund: true, refund_of: purchase.id });
    return { purchase, refund };
  }
  const homeSummary = async () =>
    (await server.call("get_transaction_summary", { date_from: "2026-03-01", date_to: "2026-03-31", category: "Home" }, me.token)).totals[0];

  it("refuses the delete, dry run or not, naming the refunds, and changes nothing", async () => {
    const { purchase, refund } = await ikea();
    for (const dry_run of [true, false]) {
      const err = await server.callError("delete_transaction", { transaction_id: purchase.id, dry_run, idempotency_key: key() }, me.token);
      expect(err.data).to.include({ code: "invalid_params", field: "refunds" });
      expect(err.message).to.contain(refund.id).and.to.contain("60.00 EUR").and.to.contain('"Flatmate"');
    }
    expect(await row(purchase.id)).to.not.equal(undefined);
    expect((await row(refund.id)).refund_of).to.equal(purchase.id);
    await call("delete_transaction", { transaction_id: purchase.id, refunds: "delete" });
  });

  it("names the refunds in the dry run, and keeps them as plain income; undo restores the links", async () => {
    const { purchase, refund } = await ikea();
    const before = await homeSummary();
    const preview = await call("delete_transaction", { transaction_id: purchase.id, refunds: "keep", dry_run: true });
    expect(preview.status).to.equal("dry_run");
    expect(preview.refunds.map((t: any) => t.id)).to.deep.equal([refund.id]);
    expect((await row(refund.id)).refund_of).to.equal(purchase.id);

    const done = await call("delete_transaction", { transaction_id: purchase.id, refunds: "keep" });
    expect(done.refunds).to.have.length(1);
    // list_changes tells the whole change: the refund kept, and both rows it touched (issue 47).
    const entry = (await server.call("list_changes", { audit_id: done.audit_id }, me.token)).changes[0];
    expect(entry.summary).to.equal("deleted expense -139.99 EUR IKEA on 2026-03-02, Giro, Home; refund kept as income: 60.00 EUR Flatmate on 2026-03-05");
    expect([...entry.ids].sort()).to.deep.equal([purchase.id, refund.id].sort());
    expect(done.refunds[0]).to.not.have.property("refund_of");
    expect(done.refunds[0]).to.not.have.property("refund");
    expect(await row(purchase.id)).to.equal(undefined);
    const kept = await row(refund.id);
    expect(kept.refund_of).to.equal(null);
    expect(Number(kept.refund)).to.equal(0);
    // No longer a refund: the 60.00 is income, and nothing is taken off spending.
    const after = await homeSummary();
    expect(after).to.deep.include({ income: { value: "60.00", currency: "EUR", minor: 6000 } });
    expect(after).to.not.have.property("refunds");

    await call("undo_change", { audit_id: done.audit_id });
    expect(await row(purchase.id)).to.not.equal(undefined);
    const restored = await row(refund.id);
    expect(restored.refund_of).to.equal(purchase.id);
    expect(Number(restored.refund)).to.equal(1);
    expect(await homeSummary()).to.deep.equal(before);
  });

  it("deletes the refunds too when asked, and undo brings both back", async () => {
    const { purchase, refund } = await ikea();
    const done = await call("delete_transaction", { transaction_id: purchase.id, refunds: "delete" });
    expect(done.refunds.map((t: any) => t.id)).to.deep.equal([refund.id]);
    expect(await row(purchase.id)).to.equal(undefined);
    expect(await row(refund.id)).to.equal(undefined);
    await call("undo_change", { audit_id: done.audit_id });
    expect((await row(refund.id)).refund_of).to.equal(purchase.id);
  });

  it("a transaction without refunds deletes as before, with no refunds in the answer", async () => {
    const t = (await call("create_transaction", { wallet_id: wallet, amount: "3.00", direction: "expense" })).transaction;
    const done = await call("delete_transaction", { transaction_id: t.id });
    expect(done).to.not.have.property("refunds");
    expect(await row(t.id)).to.equal(undefined);
  });
});
