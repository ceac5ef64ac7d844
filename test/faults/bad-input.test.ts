/**
 * docs/decisions.md, "Faults and hostile input": deterministic bad input was answered internal_error ("retry later with the
 * same key"), params nested 50,000 deep overflowed the stack (HTTP 500), lone surrogates were stored as
 * U+FFFD and bidi overrides as given, any Content-Type was parsed as JSON, "id": 1e400 was answered with
 * id null, and a dry run with a key that had committed said nothing. Each is checked here on both engines.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { AppError, internalError } from "../../src/errors.js";

const key = () => randomUUID();

/** [[[…"x"…]]] as JSON text (100 kB for 50,000 levels): JSON.stringify itself recurses, so it is written by hand. */
const nestedJson = (depth: number) => `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
const nested = (depth: number): unknown => JSON.parse(nestedJson(depth));

describe(`faults: bad input is invalid_params, never internal_error (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let u: TestUser;
  let walletId: string;

  before(async () => {
    server = await startTestServer();
    u = await server.createUser();
    walletId = (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
  });
  after(async () => server?.close());

  const expectInvalid = async (tool: string, params: Record<string, unknown>, field: string) => {
    const answer = await server.rpc({ jsonrpc: "2.0", id: 7, method: tool, params }, u.token);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.error?.data, `${tool} ${JSON.stringify(params).slice(0, 80)}`).to.include({ code: "invalid_params", field, retryable: false });
    expect(answer.body.error.message).to.not.match(/retry/i);
    return answer.body.error;
  };

  it("refuses NUL in any text argument, at any depth, naming the field", async () => {
    await expectInvalid(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", payee: "Shop\u0000", idempotency_key: key() },
      "payee",
    );
    await expectInvalid(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", tags: ["ok", "n\u0000l"], idempotency_key: key() },
      "tags.1",
    );
    await expectInvalid("create_wallet", { name: "\u0000", type: "cash", currency: "USD", idempotency_key: key() }, "name");
    await expectInvalid("update_wallet", { wallet_id: walletId, notes: "a\u0000b", idempotency_key: key() }, "notes");
    await expectInvalid("search_product_knowledge", { query: "budget\u0000" }, "query");
  });

  it("refuses lone surrogates (which were stored as U+FFFD) and keeps surrogate pairs", async () => {
    await expectInvalid(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", payee: "Caf\ud800", idempotency_key: key() },
      "payee",
    );
    await expectInvalid("create_wallet", { name: "\udc00x", type: "cash", currency: "USD", idempotency_key: key() }, "name");
    const ok = await server.call(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", payee: "Café 😀", idempotency_key: key() },
      u.token,
    );
    expect(ok.transaction.payee).to.equal("Café 😀");
  });

  it("stores a payee whose folded key is longer than the payee, on both engines", async () => {
    // "İ" folds to two characters: 140 of them make a 280-character key (Postgres's column was 255).
    const answer = await server.rpc(
      {
        jsonrpc: "2.0",
        id: 8,
        method: "create_transaction",
        params: { wallet_id: walletId, direction: "expense", amount: "1.00", payee: "İ".repeat(140), idempotency_key: key() },
      },
      u.token,
    );
    expect(answer.body.result?.status, JSON.stringify(answer.body.error)).to.equal("committed");
    const rule = await server.rpc(
      { jsonrpc: "2.0", id: 9, method: "save_rule", params: { value: "İ".repeat(200), set_category: "Odd", idempotency_key: key() } },
      u.token,
    );
    expect(rule.body.result?.status, JSON.stringify(rule.body.error)).to.equal("committed");
  });

  it("refuses bidirectional overrides and isolates, and allows the right-to-left marks", async () => {
    await expectInvalid(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", payee: "evil\u202Egpj.exe", idempotency_key: key() },
      "payee",
    );
    await expectInvalid("create_wallet", { name: "\u2067Savings", type: "cash", currency: "USD", idempotency_key: key() }, "name");
    const ok = await server.call(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", payee: "שלום\u200F 42", idempotency_key: key() },
      u.token,
    );
    expect(ok.transaction.payee).to.equal("שלום\u200F 42");
  });

  it("refuses dates outside 1900-01-01..2999-12-31 on input and in as_of", async () => {
    await expectInvalid(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", date: "0000-01-01", idempotency_key: key() },
      "date",
    );
    const t = (
      await server.call(
        "create_transaction",
        { wallet_id: walletId, direction: "expense", amount: "1.00", date: "1900-01-01", idempotency_key: key() },
        u.token,
      )
    ).transaction;
    await expectInvalid("update_transaction", { transaction_id: t.id, date: "0000-01-01", idempotency_key: key() }, "date");
    await expectInvalid("update_transaction", { transaction_id: t.id, date: "3000-01-01", idempotency_key: key() }, "date");
    await server.call("update_transaction", { transaction_id: t.id, date: "2999-12-31", idempotency_key: key() }, u.token);
    await expectInvalid("get_budget_status", { as_of: "9999-12-31" }, "as_of");
    await expectInvalid("get_wallet_balance", { as_of: "1899-12-31" }, "as_of");
    expect(await server.call("get_budget_status", { as_of: "2999-12-31" }, u.token)).to.be.an("object");
  });

  it("answers params nested 50,000 deep with invalid_params (not a stack overflow or a 500), directly and over tools/call", async () => {
    const deep = nestedJson(50_000);
    const direct = await server.rpc(
      `{"jsonrpc":"2.0","id":1,"method":"create_wallet","params":{"name":${deep},"type":"cash","currency":"USD","idempotency_key":"${key()}"}}`,
      u.token,
    );
    expect(direct.status).to.equal(200);
    expect(direct.body.error.data).to.include({ code: "invalid_params", retryable: false });
    expect(direct.body.error.data.field).to.match(/^(params\.)?name(\.0)+$/);
    const mcp = await server.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_wallets","arguments":{"x":${deep}}}}`, u.token);
    expect(mcp.status).to.be.oneOf([200, 400]);
    const mcpError = mcp.body.error?.data ?? JSON.parse(mcp.body.result.content[0].text.split("error.data: ")[1]);
    expect(mcpError).to.include({ code: "invalid_params", retryable: false });
    const envelope = await server.rpc(`{"jsonrpc":"2.0","id":3,"method":"list_wallets","extra":${deep}}`, u.token);
    expect(envelope.status).to.equal(400);
    expect(envelope.body.error.data.field).to.match(/^extra(\.0)+$/);
    // Just inside the bound is the ordinary validation error of an unknown argument.
    await expectInvalid("list_wallets", { x: nested(10) }, "x");
  });

  it("refuses more values than the bound before validating them", async () => {
    const tags = Array.from({ length: 6000 }, (_, i) => `t${i}`);
    const err = await expectInvalid(
      "create_transaction",
      { wallet_id: walletId, direction: "expense", amount: "1.00", tags, idempotency_key: key() },
      "tags.4997",
    );
    expect(err.data.expected).to.match(/at most 5000 values/);
  });

  it("refuses a Content-Type that is not JSON with 415, and reads a missing one as JSON", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami" });
    const post = (headers: Record<string, string>) =>
      fetch(server.mcpUrl, {
        method: "POST",
        headers: { accept: "application/json", authorization: `Bearer ${u.token}`, ...headers },
        body: new TextEncoder().encode(body),
      });
    const plain = await post({ "content-type": "text/plain" });
    expect(plain.status).to.equal(415);
    expect((await plain.json()).error.data).to.include({ code: "unsupported_media_type" });
    expect((await post({ "content-type": "application/x-www-form-urlencoded" })).status).to.equal(415);
    expect((await post({ "content-type": "application/json; charset=utf-8" })).status).to.equal(200);
    expect((await post({ "content-type": "application/vnd.api+json" })).status).to.equal(200);
    expect((await post({})).status).to.equal(200); // fetch sends no Content-Type for a byte body
  });

  it('answers "id": 1e400 as an invalid request with id null, not as a call', async () => {
    const res = await server.rpc('{"jsonrpc":"2.0","id":1e400,"method":"whoami"}', u.token);
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ id: null });
    expect(res.body.error.data).to.include({ field: "id" });
  });

  it("says in a dry run that its key already committed", async () => {
    const k = key();
    const params = { wallet_id: walletId, direction: "expense", amount: "3.00", idempotency_key: k };
    const committed = await server.call("create_transaction", params, u.token);
    const same = await server.call("create_transaction", { ...params, dry_run: true }, u.token);
    expect(same.status).to.equal("dry_run");
    const warning = same.warnings.find((w: { code: string }) => w.code === "idempotency_key_already_used");
    expect(warning?.message)
      .to.include(committed.audit_id)
      .and.to.match(/replayed/);
    const other = await server.call("create_transaction", { ...params, amount: "4.00", dry_run: true }, u.token);
    expect(other.warnings.find((w: { code: string }) => w.code === "idempotency_key_already_used")?.message).to.match(/idempotency_key_reused/);
    const fresh = await server.call("create_transaction", { ...params, idempotency_key: key(), dry_run: true }, u.token);
    expect(fresh.warnings.map((w: { code: string }) => w.code)).to.not.include("idempotency_key_already_used");
  });

  it('says "retry with the same key" only for failures a retry can fix', () => {
    expect(internalError().retryable).to.equal(false);
    expect(internalError().message).to.not.match(/retry later/i);
    expect(new AppError("unavailable", "busy").retryable).to.equal(true);
    expect(new AppError("invalid_params", "x").retryable).to.equal(false);
  });
});
