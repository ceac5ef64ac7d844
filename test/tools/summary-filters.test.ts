/**
 * get_transaction_summary's filters (category, tags_any, direction, currency, wallet_id) against sums
 * worked out by hand: each narrows what is counted, they combine with AND, categories and tags compare
 * case-insensitively, and a filter matching nothing answers empty totals rather than an error.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`get_transaction_summary filters (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  let checking: string;
  let savings: string;
  let euros: string;
  const range = { date_from: "2026-02-01", date_to: "2026-02-28" };

  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    const wallet = async (name: string, currency: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: randomUUID() }, user.token)).wallet.id as string;
    checking = await wallet("Checking", "USD");
    savings = await wallet("Savings", "USD");
    euros = await wallet("Euro card", "EUR");
    const rows: [string, string, string, string, string | undefined, string[]?][] = [
      // wallet, date, direction, amount, category, tags
      [checking, "2026-02-03", "expense", "40.10", "Groceries", ["food"]],
      [checking, "2026-02-10", "expense", "25.00", "groceries", ["food", "weekly"]],
      [checking, "2026-02-12", "expense", "60.00", "Dining", ["food", "friends"]],
      [checking, "2026-02-15", "income", "1000.00", "Salary", []],
      [checking, "2026-02-20", "income", "15.00", "Groceries", ["refund"]],
      [savings, "2026-02-21", "expense", "5.55", "Groceries", ["weekly"]],
      [euros, "2026-02-22", "expense", "30.00", "Groceries", ["food"]],
      [checking, "2026-03-01", "expense", "99.00", "Groceries", ["food"]], // outside the range
    ];
    for (const [wallet_id, date, direction, amount, category, tags] of rows) {
      await server.call("create_transaction", { wallet_id, date, direction, amount, category, ...(tags?.length ? { tags } : {}), idempotency_key: randomUUID() }, user.token);
    }
    // A transfer is never counted, whatever the filters.
    await server.call("create_transaction", { wallet_id: checking, to_wallet_id: savings, direction: "transfer", amount: "200.00", date: "2026-02-05", idempotency_key: randomUUID() }, user.token);
  });
  after(async () => server?.close());

  const summary = (params: Record<string, unknown>) => server.call("get_transaction_summary", { ...range, ...params }, user.token);
  const brief = (totals: any[]) => totals.map((t) => [t.currency, t.income.value, t.expenses.value, t.count]);

  it("counts one category, case-insensitively, in every currency", async () => {
    expect(brief((await summary({ category: "GROCERIES" })).totals)).to.deep.equal([
      ["EUR", "0.00", "30.00", 1],
      // The income in Groceries is a refund: taken off expenses, not income.
      ["USD", "0.00", "55.65", 4],
    ]);
  });

  it("narrows by direction, currency and wallet, and combines filters with AND", async () => {
    // direction picks a side of one meaning of spending (docs/ledger.md, "Refunds"): expense keeps the
    // refund taken off it (as without the filter), income leaves it out (it is not money earned).
    expect(brief((await summary({ category: "groceries", direction: "expense", currency: "USD" })).totals)).to.deep.equal([["USD", "0.00", "55.65", 4]]);
    expect(brief((await summary({ direction: "income" })).totals)).to.deep.equal([["USD", "1000.00", "0.00", 1]]);
    expect(brief((await summary({ wallet_id: savings })).totals)).to.deep.equal([["USD", "0.00", "5.55", 1]]);
    expect(brief((await summary({ currency: "EUR" })).totals)).to.deep.equal([["EUR", "0.00", "30.00", 1]]);
  });

  it("counts a transaction once for tags_any, however many of the tags it has", async () => {
    // food: 40.10 + 25.00 + 60.00 (USD) and 30.00 (EUR); weekly adds 5.55; 25.00 has both and counts once.
    expect(brief((await summary({ tags_any: ["Food", "weekly"] })).totals)).to.deep.equal([
      ["EUR", "0.00", "30.00", 1],
      ["USD", "0.00", "130.65", 4],
    ]);
  });

  it("keeps group_by working under filters", async () => {
    const { groups, totals } = await summary({ tags_any: ["food"], currency: "USD", group_by: "category" });
    expect(groups.map((g: any) => [g.key, g.expenses.value, g.count])).to.deep.equal([
      ["Groceries", "65.10", 2],
      ["Dining", "60.00", 1],
    ]);
    expect(brief(totals)).to.deep.equal([["USD", "0.00", "125.10", 3]]);
  });

  it("answers empty totals when nothing matches, and not_found for another user's wallet", async () => {
    const none = await summary({ category: "Travel" });
    expect(none.totals).to.deep.equal([]);
    expect(none.groups).to.deep.equal([]);
    const other = await server.createUser();
    const err = await server.callError("get_transaction_summary", { ...range, wallet_id: checking }, other.token);
    expect(err.data).to.include({ code: "not_found", field: "wallet_id" });
  });

  it("refuses a transfer direction (transfers are never counted), naming the field", async () => {
    const err = await server.callError("get_transaction_summary", { ...range, direction: "transfer" }, user.token);
    expect(err.data).to.include({ code: "invalid_params", field: "direction" });
  });
});
