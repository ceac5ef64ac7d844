/**
 * list_changes over the audit log: the caller's committed writes newest first, each with the audit id its
 * write answered, the client that wrote it, the ids it touched and a summary in the person's words; filters
 * by key, audit id, tool, time, day, client and area; paging; areas the token cannot read left out; dry runs
 * and failed writes absent; nothing of another user's.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`list_changes (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  // A clock that moves one minute per write, so `since` can split the history.
  let minute = 0;
  const now = () => new Date(Date.UTC(2026, 2, 15, 9, minute));
  const keys = { wallet: randomUUID(), spend: randomUUID(), fix: randomUUID(), budget: randomUUID(), transfer: randomUUID() };
  const answers: Record<string, any> = {};

  before(async () => {
    server = await startTestServer({}, { now });
    user = await server.createUser();
    const call = async (name: keyof typeof keys, tool: string, params: Record<string, unknown>) => {
      minute += 1;
      answers[name] = await server.call(tool, { ...params, idempotency_key: keys[name] }, user.token);
      return answers[name];
    };
    const wallet = (await call("wallet", "create_wallet", { name: "Checking", type: "checking", currency: "USD" })).wallet.id;
    const spent = (await call("spend", "create_transaction", { wallet_id: wallet, amount: "12.40", direction: "expense", payee: "Cafe" })).transaction.id;
    await call("fix", "update_transaction", { transaction_id: spent, amount: "14.20", notes: "with tip" });
    await call("budget", "create_budget", { name: "Food", amount: "300.00", currency: "USD", period: "month" });
    const savings = (await server.call("create_wallet", { name: "Savings", type: "savings", currency: "USD", idempotency_key: randomUUID() }, user.token)).wallet.id;
    minute += 1;
    await call("transfer", "create_transaction", { wallet_id: wallet, to_wallet_id: savings, amount: "50.00", direction: "transfer" });
    // Neither a dry run nor a refused write is a change.
    await server.call("delete_transaction", { transaction_id: spent, dry_run: true, idempotency_key: randomUUID() }, user.token);
    await server.callError("update_transaction", { transaction_id: spent, amount: "-1", idempotency_key: randomUUID() }, user.token);
    // Another user's writes never show up.
    const other = await server.createUser();
    await server.call("create_wallet", { name: "Theirs", type: "cash", currency: "USD", idempotency_key: keys.wallet }, other.token);
  });
  after(async () => server?.close());

  const list = (params: Record<string, unknown> = {}, token = user.token) => server.call("list_changes", params, token);

  it("lists the caller's committed writes newest first, in the person's words, with the client and every row touched", async () => {
    const { changes, next_cursor } = await list();
    expect(next_cursor).to.equal(null);
    expect(changes.map((c: any) => c.tool)).to.deep.equal(["create_transaction", "create_wallet", "create_budget", "update_transaction", "create_transaction", "create_wallet"]);
    const of = (name: keyof typeof keys) => changes.find((c: any) => c.audit_id === answers[name].audit_id);
    for (const name of ["wallet", "spend", "fix", "budget", "transfer"] as const) expect(of(name), name).to.not.equal(undefined);
    expect(of("spend").summary).to.equal("expense -12.40 USD Cafe on 2026-03-15, Checking");
    expect(of("fix").summary).to.equal("changed expense -14.20 USD Cafe on 2026-03-15, Checking: amount -12.40 USD → -14.20 USD, notes");
    expect(of("wallet").summary).to.equal("wallet Checking (checking, USD)");
    expect(of("budget").summary).to.equal("budget Food 300.00 USD a month");
    expect(of("transfer").summary).to.equal("transfer 50.00 USD Checking → Savings on 2026-03-15");
    expect(of("transfer").ids).to.have.members([answers.transfer.transaction.id, answers.transfer.counterpart.id]);
    expect(of("fix").at).to.equal("2026-03-15T09:03:00.000Z");
    const tokenName = (await server.db("mcp_tokens").where({ user_id: user.id }).first("name")).name;
    expect(changes.map((c: any) => c.client)).to.deep.equal(changes.map(() => tokenName));
  });

  it("answers 'did it go through?' by idempotency_key or audit_id, and filters by tool and since", async () => {
    expect((await list({ idempotency_key: keys.fix })).changes.map((c: any) => c.audit_id)).to.deep.equal([answers.fix.audit_id]);
    expect((await list({ idempotency_key: randomUUID() })).changes).to.deep.equal([]);
    expect((await list({ audit_id: answers.budget.audit_id })).changes.map((c: any) => c.tool)).to.deep.equal(["create_budget"]);
    expect((await list({ tool: "create_transaction" })).changes.map((c: any) => c.audit_id)).to.deep.equal([answers.transfer.audit_id, answers.spend.audit_id]);
    expect((await list({ since: "2026-03-15T10:03:00+01:00" })).changes.map((c: any) => c.tool)).to.deep.equal(["create_transaction", "create_wallet", "create_budget", "update_transaction"]);
  });

  it("pages newest first without repeating or skipping, and refuses a cursor of other filters", async () => {
    const whole = (await list()).changes.map((c: any) => c.audit_id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await list({ limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.changes.map((c: any) => c.audit_id));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(seen).to.deep.equal(whole);
    const first = await list({ limit: 1 });
    const err = await server.callError("list_changes", { limit: 1, tool: "create_wallet", cursor: first.next_cursor }, user.token);
    expect(err.data).to.include({ code: "invalid_params", field: "cursor" });
  });

  it("leaves out areas the token cannot read, and everything of another user's", async () => {
    const noBudgets = await user.tokenWith(["meta:whoami", "read:transactions", "read:wallets"]);
    expect((await list({}, noBudgets)).changes.map((c: any) => c.tool)).to.not.include("create_budget");
    const whoamiOnly = await user.tokenWith(["meta:whoami"]);
    expect((await list({}, whoamiOnly)).changes).to.deep.equal([]);
    const other = await server.createUser();
    expect((await list({ audit_id: answers.budget.audit_id }, other.token)).changes).to.deep.equal([]);
    expect((await list({ idempotency_key: keys.wallet }, other.token)).changes).to.deep.equal([]);
  });

  it("refuses malformed filters, naming the field", async () => {
    for (const [params, field] of [[{ audit_id: "12a" }, "audit_id"], [{ since: "yesterday" }, "since"], [{ since: "2026-12-31T23:59:60Z" }, "since"], [{ tool: "Drop Table" }, "tool"], [{ idempotency_key: "nope" }, "idempotency_key"]] as const) {
      const err = await server.callError("list_changes", params, user.token);
      expect(err.data, field).to.include({ code: "invalid_params", field });
    }
  });
});
