/**
 * list_categories and list_tags against counts worked out by hand: one entry per name whatever its
 * spelling, most used first (ties by name), the last day used, expenses per currency as magnitudes
 * (income and transfers counted as uses, not as spending), the date window, keyset paging that neither
 * repeats nor skips, refused foreign cursors, and nothing of another user's.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`list_categories and list_tags (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;

  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    const wallet = async (name: string, currency: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: randomUUID() }, user.token)).wallet.id as string;
    const usd = await wallet("Checking", "USD");
    const eur = await wallet("Euro card", "EUR");
    const rows: [string, string, string, string, string, string[]][] = [
      [usd, "2026-01-05", "expense", "40.10", "Groceries", ["food"]],
      [usd, "2026-02-10", "expense", "25.00", "groceries", ["Food", "weekly"]],
      [eur, "2026-02-12", "expense", "30.00", "GROCERIES", ["food"]],
      [usd, "2026-02-15", "income", "15.00", "Groceries", ["refund"]],
      [usd, "2026-02-20", "expense", "60.00", "Dining", ["food", "friends"]],
      [usd, "2026-03-01", "expense", "12.00", "Dining", ["friends"]],
      [usd, "2026-03-02", "income", "1000.00", "Salary", []],
      [usd, "2026-03-03", "expense", "8.00", "Books", ["weekly"]],
    ];
    for (const [wallet_id, date, direction, amount, category, tags] of rows) {
      await server.call("create_transaction", { wallet_id, date, direction, amount, category, ...(tags.length ? { tags } : {}), idempotency_key: randomUUID() }, user.token);
    }
    // Another user's labels never show up.
    const other = await server.createUser();
    const theirs = (await server.call("create_wallet", { name: "X", type: "cash", currency: "USD", idempotency_key: randomUUID() }, other.token)).wallet.id;
    for (let i = 0; i < 5; i++) {
      await server.call("create_transaction", { wallet_id: theirs, direction: "expense", amount: "1.00", category: "Casino", tags: ["secret"], idempotency_key: randomUUID() }, other.token);
    }
  });
  after(async () => server?.close());

  const brief = (labels: any[]) => labels.map((l) => [l.name.toLowerCase(), l.transactions, l.last_used, l.spent.map((m: any) => `${m.value} ${m.currency}`)]);

  it("lists categories once per folded name, most used first, with last use and spending per currency", async () => {
    const { categories, next_cursor } = await server.call("list_categories", {}, user.token);
    expect(next_cursor).to.equal(null);
    expect(brief(categories)).to.deep.equal([
      // The income in Groceries is a refund: spending net of it (docs/ledger.md, "Refunds").
      ["groceries", 4, "2026-02-15", ["30.00 EUR", "50.10 USD"]],
      ["dining", 2, "2026-03-01", ["72.00 USD"]],
      ["books", 1, "2026-03-03", ["8.00 USD"]],
      ["salary", 1, "2026-03-02", []],
    ]);
    // The name is one of the spellings the user wrote.
    expect(["Groceries", "groceries", "GROCERIES"]).to.include(categories[0].name);
  });

  it("lists tags the same way, counting each tagged transaction once per tag", async () => {
    const { tags } = await server.call("list_tags", {}, user.token);
    expect(brief(tags)).to.deep.equal([
      ["food", 4, "2026-02-20", ["30.00 EUR", "125.10 USD"]],
      ["friends", 2, "2026-03-01", ["72.00 USD"]],
      ["weekly", 2, "2026-03-03", ["33.00 USD"]],
      ["refund", 1, "2026-02-15", ["-15.00 USD"]],
    ]);
  });

  it("counts only the days from date_from to date_to, both included", async () => {
    const { categories } = await server.call("list_categories", { date_from: "2026-02-12", date_to: "2026-03-01" }, user.token);
    expect(brief(categories)).to.deep.equal([
      ["dining", 2, "2026-03-01", ["72.00 USD"]],
      ["groceries", 2, "2026-02-15", ["30.00 EUR", "-15.00 USD"]],
    ]);
    const err = await server.callError("list_tags", { date_from: "2026-03-02", date_to: "2026-03-01" }, user.token);
    expect(err.data).to.include({ code: "invalid_params", field: "date_to" });
  });

  it("pages with next_cursor without repeating or skipping, and refuses a cursor of another query", async () => {
    const whole = (await server.call("list_tags", {}, user.token)).tags.map((t: any) => t.name);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await server.call("list_tags", { limit: 1, ...(cursor ? { cursor } : {}) }, user.token);
      seen.push(...page.tags.map((t: any) => t.name));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(seen).to.deep.equal(whole);
    const first = await server.call("list_tags", { limit: 1 }, user.token);
    for (const [tool, params] of [
      ["list_tags", { limit: 1, date_from: "2026-01-01", cursor: first.next_cursor }],
      ["list_categories", { limit: 1, cursor: first.next_cursor }],
      ["list_tags", { cursor: "not-a-cursor!" }],
      ["list_tags", { cursor: Buffer.from(JSON.stringify({ v: 1, f: "x", n: "1; DROP TABLE", k: 1 })).toString("base64url") }],
    ] as const) {
      const err = await server.callError(tool, params, user.token);
      expect(err.data, JSON.stringify(params)).to.include({ code: "invalid_params", field: "cursor" });
    }
  });

  it("answers empty lists for a user with no transactions", async () => {
    const fresh = await server.createUser();
    expect(await server.call("list_categories", {}, fresh.token)).to.deep.equal({ categories: [], next_cursor: null });
    expect(await server.call("list_tags", {}, fresh.token)).to.deep.equal({ tags: [], next_cursor: null });
  });
});
