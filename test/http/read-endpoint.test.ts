/**
 * POST /api/v1/mcp/read, the read-only endpoint (docs/decisions.md#read-only-endpoint): the same server
 * with its read tools only, whatever the token's scopes. Tested as the main endpoint is: a real SDK
 * client over Streamable HTTP, direct JSON-RPC calls and batches, the 405 for other methods, and the
 * OAuth flow with the SDK, whose token is bound to the read-only resource and refused by the full one.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { tools } from "../../generated/registry.js";
import { READ_SCOPES } from "../../src/auth/tool-access.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { consent, MemoryProvider } from "../oauth/helpers.js";

const READ_TOOLS = tools.filter((t) => t.kind === "read").map((t) => t.name);

describe(`the read-only endpoint /api/v1/mcp/read (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  let readUrl: string;
  const post = async (body: unknown, token?: string, url = readUrl) => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => undefined)) as any };
  };
  const transactions = async () => Number((await server.db("transactions").where({ user_id: user.id }).count({ n: "*" }).first())!.n);

  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    readUrl = `${server.mcpUrl}/read`;
  });
  after(async () => server?.close());

  it("holds no write tool behind a read scope, so narrowing a token to the read scopes leaves it no write", () => {
    const writes = tools.filter((t) => t.kind === "write");
    expect(writes.length).to.be.greaterThan(0);
    for (const t of writes) expect(READ_SCOPES.has(t.scope), `${t.name} needs ${t.scope}`).to.equal(false);
  });

  it("lists exactly the read tools to a real SDK client whose token holds every scope, and answers them", async () => {
    const client = new Client({ name: "read-only-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(readUrl), { requestInit: { headers: { authorization: `Bearer ${user.token}` } } }));
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).to.deep.equal(READ_TOOLS);
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect(who.isError ?? false).to.equal(false);
      // The scopes it reports are the ones this endpoint left the token: read ones only.
      const scopes = (who.structuredContent as { scopes: string[] }).scopes;
      expect(scopes.length).to.be.greaterThan(0);
      for (const s of scopes) expect(READ_SCOPES.has(s), s).to.equal(true);
      // A write called anyway is refused as a tool error the model reads, naming the endpoint; nothing is written.
      const before = await transactions();
      const refused = await client.callTool({
        name: "create_transaction",
        arguments: { wallet_id: "wal_x", amount: "-1.00", date: "2026-11-01", payee: "Test" },
      });
      expect(refused.isError).to.equal(true);
      const text = (refused.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
      expect(text).to.include("writes_disabled").and.include("/api/v1/mcp/read");
      expect(await transactions()).to.equal(before);
      // Prompts and resources are narrowed with the token: none that needs a write scope is offered.
      const prompts = await client.listPrompts().catch(() => ({ prompts: [] }));
      const full = await post({ jsonrpc: "2.0", id: 9, method: "prompts/list" }, user.token, server.mcpUrl);
      expect(prompts.prompts.length).to.be.at.most((full.body.result?.prompts ?? []).length);
    } finally {
      await client.close();
    }
  });

  it("refuses a write called directly or in a batch, and the same token still writes on /api/v1/mcp", async () => {
    const { wallet } = await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: randomUUID() }, user.token);
    const args = { wallet_id: wallet.id, amount: "4.20", direction: "expense", date: "2026-11-02", payee: "Bakery", idempotency_key: randomUUID() };
    const before = await transactions();
    const direct = await post({ jsonrpc: "2.0", id: 1, method: "create_transaction", params: args }, user.token);
    expect(direct.body.error?.data?.error ?? direct.body.error?.message).to.match(/writes_disabled|read-only/);
    const batch = await post(
      [
        { jsonrpc: "2.0", id: 2, method: "whoami" },
        { jsonrpc: "2.0", id: 3, method: "create_transaction", params: args },
      ],
      user.token,
    );
    expect(batch.status).to.equal(200);
    const answers = batch.body as any[];
    expect(answers.find((a) => a.id === 2).result.user_id).to.equal(user.id);
    expect(answers.find((a) => a.id === 3).error.message).to.include("read-only");
    expect(await transactions()).to.equal(before);
    // The full endpoint is unchanged for the same token.
    await server.call("create_transaction", args, user.token);
    expect(await transactions()).to.equal(before + 1);
  });

  it("answers 401 without a token, its challenge naming the read-only endpoint's metadata, and 405 to GET", async () => {
    const a = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(a.status).to.equal(401);
    expect(a.headers.get("www-authenticate")).to.include('resource_metadata="').and.include("/.well-known/oauth-protected-resource/api/v1/mcp/read");
    const get = await fetch(readUrl, { headers: { accept: "text/event-stream" } });
    expect(get.status).to.equal(405);
  });

  it("publishes its own protected resource metadata: its resource, read scopes only", async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-protected-resource/api/v1/mcp/read`);
    const prm = (await res.json()) as { resource: string; scopes_supported: string[] };
    expect(prm.resource).to.equal(readUrl);
    expect([...prm.scopes_supported].sort()).to.deep.equal([...READ_SCOPES].sort());
    expect(prm.scopes_supported.some((s) => s.startsWith("write:"))).to.equal(false);
  });

  it("OAuth with the SDK: the token is bound to the read-only resource, holds read scopes only, and the full endpoint refuses it", async () => {
    const provider = new MemoryProvider({ name: "Read-only client" });
    try {
      await new Client({ name: "ro", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(new URL(readUrl), { authProvider: provider }));
      expect.fail("the first connect must ask for an authorization");
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
    }
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.searchParams.get("resource")).to.equal(readUrl);
    // Even a client that asks for write scopes is offered read scopes only on this resource.
    authUrl.searchParams.set("scope", "read:transactions write:transactions meta:whoami");
    const back = await consent(server, authUrl, user.id, ["meta:whoami", "read:transactions"]);
    await new StreamableHTTPClientTransport(new URL(readUrl), { authProvider: provider }).finishAuth(back.searchParams.get("code")!);
    const client = new Client({ name: "ro", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(readUrl), { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name))
        .to.include("list_transactions")
        .and.not.include("create_transaction");
    } finally {
      await client.close();
    }
    const token = provider.savedTokens!.access_token;
    const row = await server.db("mcp_tokens").where({ user_id: user.id, resource: readUrl }).first();
    expect(JSON.parse(String(row.scopes))).to.deep.equal(["meta:whoami", "read:transactions"]);
    // RFC 8707: a token issued for the read-only endpoint is not valid at the full one.
    const full = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, token, server.mcpUrl);
    expect(full.status).to.equal(401);
  });

  it("refuses an authorization asking for write scopes only on the read-only resource", async () => {
    const provider = new MemoryProvider({ name: "Write-only client" });
    try {
      await new Client({ name: "wo", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(new URL(readUrl), { authProvider: provider }));
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
    }
    const authUrl = provider.authorizationUrl!;
    authUrl.searchParams.set("scope", "write:transactions");
    const res = await fetch(authUrl, { redirect: "manual" });
    expect(res.status).to.equal(400);
    expect(await res.text()).to.include("read scopes only");
  });
});
