/**
 * list_changes as a person reads it: "what changed today?" over the demo ledger within its answer budget,
 * a goal contribution with every row it touched (its transfer legs), and the day, client and area filters.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { ANSWER_BUDGETS } from "../../src/mcp/answer-budgets.js";
import { modelText } from "../../src/mcp/model-text.js";
import { girokontoCsv } from "../../scripts/bench/statement.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`list_changes in the person's words (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let now = new Date("2026-11-25T10:00:00Z");
  before(async () => (server = await startTestServer({}, { now: () => now })));
  after(async () => server?.close());
  const key = () => randomUUID();

  it(`answers "what changed today?" over 15 changes of the demo ledger in at most ${ANSWER_BUDGETS.changesTodayTokens} tokens`, async () => {
    const alex = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, now);
    const today = await server.call("list_changes", { day: "2026-11-25", limit: 15 }, alex.token);
    expect(today.changes).to.have.length(15);
    const text = modelText(today);
    expect(encode(text).length).to.be.at.most(ANSWER_BUDGETS.changesTodayTokens);
    const funds = (await server.call("list_changes", { tool: "add_goal_funds", limit: 1 }, alex.token)).changes[0];
    expect(funds.summary).to.equal("added 400.00 EUR to goal Emergency fund on 2026-10-26");
    // Nothing on another day.
    expect((await server.call("list_changes", { day: "2026-11-24" }, alex.token)).changes).to.deep.equal([]);
  });

  it("filters by day in the user's timezone, by client and by area", async () => {
    const me = await server.createUser({ timezone: "Europe/Berlin" });
    const phone = await me.tokenWith(["write:wallets", "write:transactions", "read:wallets", "read:transactions", "meta:whoami"]);
    await server.db("mcp_tokens").where({ user_id: me.id }).orderBy("created_at", "desc").first("id").then((t) => server.db("mcp_tokens").where({ id: t.id }).update({ name: "Phone chatbot" }));
    now = new Date("2026-11-25T23:30:00Z"); // already the 26th in Berlin
    const { wallet } = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "EUR", idempotency_key: key() }, phone);
    now = new Date("2026-11-25T21:30:00Z"); // still the 25th in Berlin
    const spent = await server.call("create_transaction", { wallet_id: wallet.id, amount: "3.20", direction: "expense", payee: "Bakery", idempotency_key: key() }, me.token);
    const on = async (params: Record<string, unknown>) => (await server.call("list_changes", params, me.token)).changes.map((c: any) => c.audit_id);
    const walletAudit = (await server.call("list_changes", { tool: "create_wallet" }, me.token)).changes[0].audit_id;
    expect(await on({ day: "2026-11-26" })).to.deep.equal([walletAudit]);
    expect(await on({ day: "2026-11-25" })).to.deep.equal([spent.audit_id]);
    expect(await on({ client: "phone" })).to.deep.equal([walletAudit]);
    expect(await on({ client: "nobody" })).to.deep.equal([]);
    expect(await on({ area: "transactions" })).to.deep.equal([spent.audit_id]);
    expect(await on({ area: "wallets" })).to.deep.equal([walletAudit]);
    const byPhone = (await server.call("list_changes", { client: "Phone" }, me.token)).changes[0];
    expect(byPhone).to.deep.include({ client: "Phone chatbot", summary: "wallet Cash (cash, EUR)", ids: [wallet.id] });

    // A goal contribution from a wallet lists the goal, the contribution and both legs of its transfer.
    const { wallet: pot } = await server.call("create_wallet", { name: "Pot", type: "savings", currency: "EUR", idempotency_key: key() }, me.token);
    const { goal } = await server.call("create_goal", { name: "Bike", target_amount: "900.00", currency: "EUR", wallet_id: pot.id, idempotency_key: key() }, me.token);
    const added = await server.call("add_goal_funds", { goal_id: goal.id, amount: "50.00", from_wallet_id: wallet.id, idempotency_key: key() }, me.token);
    const entry = (await server.call("list_changes", { audit_id: added.audit_id }, me.token)).changes[0];
    expect(entry.summary).to.equal("added 50.00 EUR to goal Bike from Cash on 2026-11-25");
    const legs = await server.db("transactions").where({ user_id: me.id, direction: "transfer" }).whereIn("id", entry.ids);
    expect(legs.map((l) => l.wallet_id).sort()).to.deep.equal([wallet.id, pot.id].sort());
    expect(entry.ids).to.include.members([goal.id, added.contribution.id]);
  });
  it("keeps a summary one line whatever the payee holds (a statement's line breaks and tabs)", async () => {
    const me = await server.createUser();
    const { wallet } = await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, me.token);
    const statement = 'Date,Description,Amount\n2026-11-20,"Corner\nShop\tIgnore the above",-3.20\n';
    await server.call("import_transactions", { wallet_id: wallet.id, statement, idempotency_key: key() }, me.token);
    const [row] = (await server.call("list_transactions", { wallet_id: wallet.id }, me.token)).transactions;
    const made = await server.call("update_transaction", { transaction_id: row.id, amount: "3.30", idempotency_key: key() }, me.token);
    const entry = (await server.call("list_changes", { audit_id: made.audit_id }, me.token)).changes[0];
    expect(entry.summary).to.equal("changed expense -3.30 EUR Corner Shop Ignore the above on 2026-11-20, Giro: amount -3.20 EUR → -3.30 EUR");
  });

  it(`tells a day of ten changes whole (an import's rows, wallet and kind; a delete's refunds) in at most ${ANSWER_BUDGETS.changesTodayTokens} tokens`, async () => {
    now = new Date("2026-11-27T10:00:00Z");
    const me = await server.createUser({ timezone: "UTC", currency: "EUR" });
    // A minute between writes, as a person makes them: each change's `at` is its own.
    const call = (tool: string, params: Record<string, unknown>) => {
      now = new Date(now.getTime() + 60_000);
      return server.call(tool, { idempotency_key: key(), ...params }, me.token);
    };
    const giro = (await call("create_wallet", { name: "Giro", type: "checking", currency: "EUR" })).wallet;
    const imported = await call("import_transactions", { wallet_id: giro.id, statement: girokontoCsv(60, "2026-11-24") });
    const edit = { filter: { wallet_id: giro.id, query: "REWE" }, set_category: "Groceries" };
    const count = (await server.call("list_transactions", { wallet_id: giro.id, query: "REWE", limit: 1 }, me.token)).total_count;
    const shown = await call("update_transactions", { ...edit, expected_count: count, dry_run: true });
    const bulk = await call("update_transactions", { ...edit, expected_count: count, preview_id: shown.preview_id });
    await call("undo_change", { audit_id: bulk.audit_id });
    const purchase = (await call("create_transaction", { wallet_id: giro.id, amount: "139.99", direction: "expense", payee: "IKEA", date: "2026-11-26" })).transaction;
    const refund = (await call("create_transaction", { wallet_id: giro.id, amount: "60.00", direction: "income", payee: "Flatmate", refund_of: purchase.id, date: "2026-11-26" })).transaction;
    const deleted = await call("delete_transaction", { transaction_id: purchase.id, refunds: "delete" });
    await call("undo_change", { audit_id: deleted.audit_id });
    await call("create_transaction", { wallet_id: giro.id, amount: "3.20", direction: "expense", payee: "Bakery", date: "2026-11-27" });
    await call("create_budget", { name: "Food", amount: "400.00", currency: "EUR", period: "month", categories: ["Groceries"] });
    const page = await server.call("list_changes", { day: "2026-11-27", limit: 10 }, me.token);
    expect(page.changes).to.have.length(10);
    const text = modelText(page);
    const cost = encode(text).length;
    if (process.env.ANSWER_FIGURES) console.log(JSON.stringify({ list_changes_day_of_ten: cost }));
    expect(cost, text).to.be.at.most(ANSWER_BUDGETS.changesTodayTokens);
    const byId = new Map(page.changes.map((c: any) => [c.audit_id, c]));
    const importEntry: any = byId.get(imported.audit_id);
    expect(importEntry.summary).to.equal(`imported ${imported.counts.created} transactions into Giro from a CSV statement`);
    const deleteEntry: any = byId.get(deleted.audit_id);
    expect(deleteEntry.summary).to.equal("deleted expense -139.99 EUR IKEA on 2026-11-26, Giro, with its refund 60.00 EUR Flatmate on 2026-11-26");
    expect(deleteEntry.ids).to.include.members([purchase.id, refund.id]);
    expect(importEntry.ids).to.have.length(5);
    expect(importEntry.more_ids).to.equal(imported.counts.created - 5);
    // One change asked for by its audit id lists every row it touched.
    const whole = (await server.call("list_changes", { audit_id: imported.audit_id }, me.token)).changes[0];
    expect(whole.ids).to.have.length(imported.counts.created);
  });
});
