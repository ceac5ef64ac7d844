/**
 * MCP sessions (Streamable HTTP, 2025-03-26 to 2025-11-25; src/mcp/sessions.ts): an unknown, pruned or
 * another user's Mcp-Session-Id answers 404 as the transport specification says, and the SDK client then
 * starts a new session; the read-only endpoint opens none and writes nothing; sessions past their life are
 * pruned by the server's schedule; a client's answer to a confirmation counts only on the endpoint that
 * asked (issue 52 item 7, issue 51 item 7).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";
import { startServer } from "../../src/serve.js";
import { engine, migratedTestDatabase } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "sessions-test", version: "0" } },
};

describe(`protocol: MCP sessions (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  // The server's clock, moved forward to age a session.
  let shiftMs = 0;
  const sessions = async () => Number((await server.db("mcp_sessions").count({ n: "*" }).first())!.n);
  const whoami = (session: string | undefined, token = user.token, url = server.mcpUrl) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2025-11-25",
        ...(session ? { "mcp-session-id": session } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } }),
    });
  const initialize = async (url = server.mcpUrl) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${user.token}` },
      body: JSON.stringify(INIT),
    });
    expect(res.status).to.equal(200);
    return res.headers.get("mcp-session-id") ?? undefined;
  };

  before(async () => {
    server = await startTestServer({}, { now: () => new Date(Date.now() + shiftMs) });
    user = await server.createUser();
  });
  after(async () => server?.close());
  afterEach(() => (shiftMs = 0));

  it("a live session is served; an unknown one answers 404 session_not_found; none at all is served", async () => {
    const session = await initialize();
    expect(session).to.be.a("string");
    expect((await whoami(session)).status).to.equal(200);
    const unknown = await whoami("x".repeat(43));
    expect(unknown.status).to.equal(404);
    const body = (await unknown.json()) as any;
    expect(body.error.data.code).to.equal("session_not_found");
    expect(body.error.message).to.match(/initialize again/);
    expect((await whoami(undefined)).status).to.equal(200);
  });

  it("another user's session answers 404", async () => {
    const session = await initialize();
    const other = await server.createUser();
    expect((await whoami(session, other.token)).status).to.equal(404);
  });

  it("a session past its life (30 days) answers 404; the SDK client surfaces the 404, and a new connection works", async () => {
    const client = new Client({ name: "sessions-test", version: "0" });
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${user.token}` } } });
    await client.connect(transport);
    try {
      expect(transport.sessionId).to.be.a("string");
      expect((await client.listTools()).tools.length).to.be.greaterThan(0);
      shiftMs = 31 * 86_400_000;
      const err = await client.listTools().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, "the SDK 1.x client reports the 404 (it does not re-initialize by itself)").to.be.instanceOf(StreamableHTTPError);
      expect((err as StreamableHTTPError).code).to.equal(404);
    } finally {
      await client.close();
    }
    // What a host does then: a new connection, a new session.
    const again = new Client({ name: "sessions-test", version: "0" });
    await again.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${user.token}` } } }));
    try {
      expect((await again.listTools()).tools.length).to.be.greaterThan(0);
    } finally {
      await again.close();
    }
  });

  it("initialize on the read-only endpoint opens no session and writes no row", async () => {
    const before = await sessions();
    const session = await initialize(`${server.mcpUrl}/read`);
    expect(session, "no Mcp-Session-Id from /read").to.equal(undefined);
    expect(await sessions()).to.equal(before);
    expect((await whoami(undefined, user.token, `${server.mcpUrl}/read`)).status).to.equal(200);
  });

  it("an answer posted to /read does not confirm a write asked on /api/v1/mcp", async () => {
    const wallet = (
      await server.call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type: "cash", currency: "EUR", idempotency_key: randomUUID() }, user.token)
    ).wallet.id;
    const readStatuses: number[] = [];
    // Every JSON-RPC response the client posts goes first, as an accept, to the read-only endpoint; then,
    // as the person's decline, to the endpoint that asked.
    const split: typeof fetch = async (url, init) => {
      const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
      if (body && body.method === undefined && "id" in body) {
        const accept = JSON.stringify({ ...body, result: { action: "accept", content: {} } });
        const read = await fetch(`${server.mcpUrl}/read`, { ...init, body: accept });
        readStatuses.push(read.status);
      }
      return fetch(url, init);
    };
    const client = new Client({ name: "sessions-test", version: "0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }) as any);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${user.token}` } }, fetch: split }),
    );
    try {
      const result: any = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: wallet, idempotency_key: randomUUID() } });
      expect(result.content[0].text).to.include("confirmation_declined");
      expect(readStatuses).to.deep.equal([400]);
      const wallets = (await server.call("list_wallets", { include_archived: true }, user.token)).wallets;
      expect(wallets.map((w: { id: string }) => w.id)).to.include(wallet);
    } finally {
      await client.close();
    }
  });
});

describe(`protocol: sessions pruned on the server's schedule (${engine})`, function () {
  this.timeout(60_000);
  it("a session older than 30 days is gone after the server starts (its purge runs at start and every 10 minutes)", async () => {
    const database = await migratedTestDatabase();
    const db = createDb(database.url);
    try {
      const at = new Date().toISOString();
      await db("users").insert({
        id: "usr_prune",
        email: "p@example.test",
        email_normalized: "p@example.test",
        password_hash: "x",
        timezone: "UTC",
        default_currency: "EUR",
        created_at: at,
        updated_at: at,
      });
      await db("mcp_tokens").insert({
        id: "tok_prune",
        user_id: "usr_prune",
        name: "t",
        token_hash: "h".repeat(64),
        scopes: "[]",
        created_at: at,
        expires_at: at,
      });
      const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
      await db("mcp_sessions").insert([
        { id: "old-session", token_id: "tok_prune", elicitation_form: false, created_at: old },
        { id: "new-session", token_id: "tok_prune", elicitation_form: false, created_at: at },
      ]);
      const running = await startServer(loadConfig({ LOG_LEVEL: "silent", PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database.url }));
      await running.stop("test over");
      const left = (await db("mcp_sessions").select("id")).map((r: { id: string }) => r.id);
      expect(left).to.deep.equal(["new-session"]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
