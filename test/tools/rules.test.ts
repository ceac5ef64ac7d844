import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`categorisation rules (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  const key = () => randomUUID();
  async function wallet(token: string, currency = "EUR") {
    const { wallet } = await server.call("create_wallet", { name: `W ${key().slice(0, 8)}`, type: "checking", currency, idempotency_key: key() }, token);
    return wallet.id as string;
  }
  const spend = (token: string, walletId: string, payee: string, amount: string, extra: Record<string, unknown> = {}) =>
    server.call("create_transaction", { wallet_id: walletId, amount, direction: "expense", payee, date: "2026-11-20", idempotency_key: key(), ...extra }, token);
  const rule = (token: string, params: Record<string, unknown>) => server.call("save_rule", { idempotency_key: key(), ...params }, token);

  it("files REWE, Lidl, Aldi and Edeka as groceries on create_transaction; an explicit category wins", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    for (const value of ["REWE", "Lidl", "Aldi", "Edeka"]) await rule(me.token, { value, set_category: "Groceries" });
    expect((await spend(me.token, w, "REWE Markt GmbH", "23.45")).transaction.category).to.equal("Groceries");
    expect((await spend(me.token, w, "EDEKA Center", "5.00")).transaction.category).to.equal("Groceries");
    expect((await spend(me.token, w, "Lidl", "5.00", { category: "Household" })).transaction.category).to.equal("Household");
    expect((await spend(me.token, w, "Kino", "9.00")).transaction.category).to.equal(null);
  });

  it("tries rules in the person's order: the first match wins, and position reorders", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const broad = await rule(me.token, { value: "amazon", set_category: "Shopping" });
    const narrow = await rule(me.token, { value: "amazon prime", set_category: "Subscriptions", add_tags: ["Streaming"], rename_payee: "Amazon Prime" });
    expect((await spend(me.token, w, "AMAZON PRIME*2K4", "8.99")).transaction.category).to.equal("Shopping");
    await rule(me.token, { rule_id: narrow.rule.id, position: 1 });
    const t = (await spend(me.token, w, "AMAZON PRIME*2K4", "8.99")).transaction;
    expect(t).to.include({ category: "Subscriptions", payee: "Amazon Prime" });
    expect(t.tags).to.deep.equal(["streaming"]);
    const { rules } = await server.call("list_rules", {}, me.token);
    expect(rules.map((r: any) => [r.id, r.position])).to.deep.equal([
      [narrow.rule.id, 1],
      [broad.rule.id, 2],
    ]);
  });

  it("matches on description, amount range, direction and wallet, with equals and starts_with", async () => {
    const me = await server.createUser();
    const a = await wallet(me.token);
    const b = await wallet(me.token);
    await rule(me.token, { field: "description", operator: "starts_with", value: "miete", set_category: "Rent", wallet_id: a });
    await rule(me.token, { operator: "equals", value: "shell", min_amount: "30", max_amount: "120", direction: "expense", set_category: "Fuel" });
    expect((await spend(me.token, a, "Hausverwaltung", "900.00", { description: "Miete Dezember" })).transaction.category).to.equal("Rent");
    expect((await spend(me.token, b, "Hausverwaltung", "900.00", { description: "Miete Dezember" })).transaction.category).to.equal(null);
    expect((await spend(me.token, a, "Shell", "45.00")).transaction.category).to.equal("Fuel");
    expect((await spend(me.token, a, "Shell", "4.50")).transaction.category).to.equal(null);
    expect((await spend(me.token, a, "Shell Station 12", "45.00")).transaction.category).to.equal(null);
    const refund = await server.call(
      "create_transaction",
      { wallet_id: a, amount: "45.00", direction: "income", payee: "Shell", date: "2026-11-20", idempotency_key: key() },
      me.token,
    );
    expect(refund.transaction.category).to.equal(null);
  });

  it("files imported rows by rule, else by the payee's most used category, and says which", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const r = await rule(me.token, { value: "rewe", set_category: "Groceries" });
    await spend(me.token, w, "Hausverwaltung Nord", "1050.00", { category: "Rent", date: "2026-10-18" });
    await spend(me.token, w, "Hausverwaltung Nord", "1050.00", { category: "Rent", date: "2026-09-18" });
    await spend(me.token, w, "Hausverwaltung Nord", "10.00", { category: "Fees", date: "2026-09-19" });
    const csv = "Buchungstag;Auftraggeber / Begünstigter;Betrag (EUR)\n24.11.2026;REWE Markt GmbH;-23,45\n18.11.2026;Hausverwaltung Nord;-1.050,00\n17.11.2026;Kino;-9,00\n";
    const preview = await server.call("import_transactions", { wallet_id: w, statement: csv, idempotency_key: key(), dry_run: true }, me.token);
    const byPayee = Object.fromEntries(preview.rows.map((x: any) => [x.payee, [x.category, x.category_from]]));
    expect(byPayee).to.deep.equal({
      "REWE Markt GmbH": ["Groceries", `rule ${r.rule.id}`],
      "Hausverwaltung Nord": ["Rent", "history"],
      Kino: [null, null],
    });
  });

  it("applies a rule to the past: the dry run lists the changes, the commit needs the right expected_count, one audit entry", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const t1 = (await spend(me.token, w, "Lidl", "12.00")).transaction;
    const t2 = (await spend(me.token, w, "LIDL DIENSTL", "7.00", { category: "Misc" })).transaction;
    await spend(me.token, w, "Aldi", "3.00");
    const params = { value: "lidl", set_category: "Groceries", apply_to_existing: true };
    const preview = await server.call("save_rule", { ...params, idempotency_key: key(), dry_run: true }, me.token);
    expect(preview.applied.count).to.equal(2);
    const byId = (rows: any[][]) => rows.sort((x, y) => (x[0] < y[0] ? -1 : 1));
    expect(byId(preview.applied.changes.map((c: any) => [c.transaction_id, c.before.category, c.after.category]))).to.deep.equal(
      byId([
        [t1.id, null, "Groceries"],
        [t2.id, "Misc", "Groceries"],
      ]),
    );
    expect((await server.call("list_rules", {}, me.token)).rules).to.have.length(0);
    const missing = await server.callError("save_rule", { ...params, idempotency_key: key() }, me.token);
    expect(missing.data).to.include({ code: "conflict", field: "expected_count" });
    const wrong = await server.callError("save_rule", { ...params, expected_count: 3, idempotency_key: key() }, me.token);
    expect(wrong.message).to.match(/changes 2 past transactions, not 3/);
    const done = await server.call("save_rule", { ...params, expected_count: 2, idempotency_key: key() }, me.token);
    expect(done.applied.count).to.equal(2);
    const after = (await server.call("list_transactions", { wallet_id: w }, me.token)).transactions;
    expect(after.filter((t: any) => t.category === "Groceries").map((t: any) => t.id).sort()).to.deep.equal([t1.id, t2.id].sort());
    const entry = await server.db("audit_log").where({ id: done.audit_id }).first();
    expect(entry).to.include({ tool: "save_rule", resource_type: "rule", resource_id: done.rule.id });
    const snapshot = JSON.parse(entry.after_json);
    expect(byId(snapshot.applied_changes.map((c: any) => [c.resourceId, c.before.transaction.category, c.after.transaction.category]))).to.deep.equal(
      byId([
        [t1.id, null, "Groceries"],
        [t2.id, "Misc", "Groceries"],
      ]),
    );
  });

  it("updates and deletes rules, refuses bad ones naming the field, and keeps users apart", async () => {
    const me = await server.createUser();
    const other = await server.createUser();
    const a = await rule(me.token, { value: "a", set_category: "A" });
    const b = await rule(me.token, { value: "b", set_category: "B" });
    const updated = await rule(me.token, { rule_id: a.rule.id, set_category: "AA" });
    expect(updated.rule).to.include({ value: "a", set_category: "AA", position: 1 });
    expect(updated.changes).to.deep.equal([{ field: "set_category", before: "A", after: "AA" }]);
    await server.call("delete_rule", { rule_id: a.rule.id, idempotency_key: key() }, me.token);
    expect((await server.call("list_rules", {}, me.token)).rules.map((r: any) => [r.id, r.position])).to.deep.equal([[b.rule.id, 1]]);
    expect((await server.callError("save_rule", { set_category: "X", idempotency_key: key() }, me.token)).data).to.include({ field: "value" });
    expect((await server.callError("save_rule", { value: "x", idempotency_key: key() }, me.token)).data).to.include({ field: "set_category" });
    expect((await server.callError("save_rule", { value: "x", set_category: "X", min_amount: "10", max_amount: "5", idempotency_key: key() }, me.token)).data).to.include({
      field: "max_amount",
    });
    expect((await server.callError("save_rule", { value: "x", set_category: "X", regex: ".*", idempotency_key: key() }, me.token)).data.code).to.equal("invalid_params");
    expect((await server.callError("delete_rule", { rule_id: b.rule.id, idempotency_key: key() }, other.token)).data).to.include({ code: "not_found", field: "rule_id" });
    expect((await server.callError("save_rule", { rule_id: b.rule.id, set_category: "Mine", idempotency_key: key() }, other.token)).data).to.include({
      code: "not_found",
    });
    expect((await server.call("list_rules", {}, other.token)).rules).to.deep.equal([]);
  });
  it("applied to the past, leaves split transactions to their parts and makes an income filed in a spending category a refund", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    await spend(me.token, w, "Lidl", "30.00", { category: "Groceries" }); // Groceries is a spending category now
    const split = (
      await spend(me.token, w, "Lidl", "20.00", {
        parts: [
          { amount: "15.00", category: "Groceries" },
          { amount: "5.00", category: "Gifts" },
        ],
      })
    ).transaction;
    const back = (
      await server.call("create_transaction", { wallet_id: w, amount: "4.00", direction: "income", payee: "Lidl", idempotency_key: key() }, me.token)
    ).transaction;
    const params = { value: "lidl", set_category: "Groceries", apply_to_existing: true };
    const preview = await server.call("save_rule", { ...params, idempotency_key: key(), dry_run: true }, me.token);
    expect(preview.applied.changes.map((c: any) => c.transaction_id)).to.deep.equal([back.id]);
    await server.call("save_rule", { ...params, expected_count: 1, idempotency_key: key() }, me.token);
    const rows = (await server.call("list_transactions", { wallet_id: w }, me.token)).transactions;
    const after = (id: string) => rows.find((t: any) => t.id === id);
    expect(after(split.id)).to.deep.include({ category: null });
    expect(after(split.id).parts.map((p: any) => p.category)).to.deep.equal(["Groceries", "Gifts"]);
    expect(after(back.id)).to.deep.include({ category: "Groceries", refund: true });
  });
});
