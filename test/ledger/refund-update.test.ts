/**
 * refund_of on update_transaction (issue 49, item 1): an imported credit is marked as the refund of an
 * expense in another wallet (its category taken when it had none, spending netted), the link is cleared
 * with null, and undo restores it; the checks of create hold (only an income, only an expense of the
 * person, the same currency, never itself, no direction switch that would break a link). Both engines.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();

describe(`update_transaction sets and clears refund_of (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  let visa: string;
  let giro: string;
  let dollars: string;
  let shoes: any;
  let credit: any;

  const mine = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: key(), ...params }, me.token);
  const read = (tool: string, params: Record<string, unknown> = {}) => server.call(tool, params, me.token);
  const refused = (params: Record<string, unknown>) => server.callError("update_transaction", { idempotency_key: key(), ...params }, me.token);
  const shopping = async () =>
    (await read("get_transaction_summary", { date_from: "2026-03-01", date_to: "2026-03-20", group_by: "category" })).groups.find(
      (g: any) => g.key === "Shopping",
    );

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-20T12:00:00Z") });
    me = await server.createUser({ timezone: "UTC" });
    const wallet = async (name: string, type: string, currency = "EUR") => (await mine("create_wallet", { name, type, currency })).wallet.id as string;
    visa = await wallet("Visa", "credit_card");
    giro = await wallet("Girokonto", "checking");
    dollars = await wallet("Dollars", "checking", "USD");
    shoes = (
      await mine("create_transaction", { wallet_id: visa, date: "2026-03-05", amount: "80.00", direction: "expense", payee: "Zalando", category: "Shopping" })
    ).transaction;
    // The credit as a statement import leaves it: plain income in another wallet, no category.
    credit = (await mine("create_transaction", { wallet_id: giro, date: "2026-03-12", amount: "80.00", direction: "income", payee: "ZALANDO SE" })).transaction;
  });
  after(async () => server?.close());

  it("marks an existing income as the refund of an expense in another wallet, netting the spending, and undo takes it back", async () => {
    expect(credit).to.not.have.property("refund");
    const marked = await mine("update_transaction", { transaction_id: credit.id, refund_of: shoes.id });
    expect(marked.transaction).to.deep.include({ refund: true, refund_of: shoes.id, category: "Shopping", wallet_id: giro });
    expect(await shopping()).to.deep.include({ expenses: { value: "0.00", currency: "EUR", minor: 0 } });

    await mine("undo_change", { audit_id: marked.audit_id });
    const back = (await read("list_transactions", { wallet_id: giro })).transactions[0];
    expect(back.id).to.equal(credit.id);
    expect(back).to.not.have.property("refund_of");
    expect(back).to.not.have.property("refund");
    expect(back.category).to.equal(null);
    expect((await shopping()).expenses.value).to.equal("80.00");
  });

  it("clears the link with null: plain income again (a category given keeps it a refund by its category only)", async () => {
    await mine("update_transaction", { transaction_id: credit.id, refund_of: shoes.id });
    const cleared = await mine("update_transaction", { transaction_id: credit.id, refund_of: null, category: "Gifts received" });
    expect(cleared.transaction).to.not.have.property("refund_of");
    expect(cleared.transaction).to.not.have.property("refund");
    expect((await shopping()).expenses.value).to.equal("80.00");
  });

  it("refuses what create refuses, by field, with nothing written", async () => {
    const other = (await mine("create_transaction", { wallet_id: dollars, date: "2026-03-06", amount: "10.00", direction: "expense", payee: "Amazon US" }))
      .transaction;
    const income = (await mine("create_transaction", { wallet_id: giro, date: "2026-03-13", amount: "5.00", direction: "income", payee: "Bonus" })).transaction;
    const before = await server.db("transactions").orderBy("id");
    const cases: [Record<string, unknown>, string, string][] = [
      // Only an income refunds; an expense is never one.
      [{ transaction_id: shoes.id, refund_of: shoes.id }, "refund_of", "invalid_params"],
      // Never itself, even when it becomes an income in the same call.
      [{ transaction_id: shoes.id, direction: "income", refund_of: shoes.id }, "refund_of", "invalid_params"],
      // Only an expense is refunded.
      [{ transaction_id: credit.id, refund_of: income.id }, "refund_of", "invalid_params"],
      // The same currency: a EUR credit does not refund a USD purchase.
      [{ transaction_id: credit.id, refund_of: other.id }, "refund_of", "invalid_params"],
      [{ transaction_id: credit.id, refund_of: "txn_AAAAAAAAAAAAAAAAAAAAAA" }, "refund_of", "not_found"],
    ];
    for (const [params, field, code] of cases) {
      const err = await refused(params);
      expect(err.data, JSON.stringify(params)).to.include({ code, field });
    }
    // A link stands: the refund cannot become an expense, nor the refunded expense an income.
    await mine("update_transaction", { transaction_id: credit.id, refund_of: shoes.id });
    const linked = await server.db("transactions").orderBy("id");
    expect((await refused({ transaction_id: credit.id, direction: "expense" })).data).to.include({ code: "invalid_params", field: "direction" });
    const err = await refused({ transaction_id: shoes.id, direction: "income" });
    expect(err.data).to.include({ code: "invalid_params", field: "direction" });
    expect(err.message).to.include(credit.id);
    expect(await server.db("transactions").orderBy("id")).to.deep.equal(linked);
    expect(linked.length).to.equal(before.length);
    // Both at once is allowed: refund_of: null with the switch.
    const flipped = await mine("update_transaction", { transaction_id: credit.id, direction: "expense", refund_of: null, dry_run: true });
    expect(flipped.transaction).to.deep.include({ direction: "expense" });
    expect(flipped.transaction).to.not.have.property("refund_of");
  });

  it("refuses a refund of another currency on create too", async () => {
    const other = (await read("list_transactions", { wallet_id: dollars })).transactions[0];
    const err = await server.callError(
      "create_transaction",
      { wallet_id: giro, amount: "1.00", direction: "income", refund_of: other.id, idempotency_key: key() },
      me.token,
    );
    expect(err.data).to.include({ code: "invalid_params", field: "refund_of" });
  });
});
