/**
 * GET /api/v1/mcp/sse: the 2024-11-05 HTTP+SSE transport (endpoint event, POSTs answered on the stream,
 * bound to the stream's user) and change events (delivered live, replayed after Last-Event-ID from the
 * audit log, keep-alives). Changes are committed and published exactly as the write pipeline does.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { closeServices, createApp, createServices } from "../../src/app.js";
import { createDb } from "../../src/db/knex.js";
import { revokeToken } from "../../src/auth/tokens.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { JSON_HEADERS, SseReader, publishChange, raw } from "./helpers.js";

describe(`protocol: SSE transport and change events (${engine})`, () => {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let sseUrl: string;
  const open: SseReader[] = [];
  const connect = async (token: string, headers: Record<string, string> = {}, url = sseUrl) => {
    const r = await SseReader.open(url, { authorization: `Bearer ${token}`, ...headers });
    open.push(r);
    return r;
  };
  const post = (path: string, token: string | undefined, body: unknown, base = server.url) =>
    raw(`${base}${path}`, { headers: { ...JSON_HEADERS, accept: "*/*", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

  before(async () => {
    server = await startTestServer();
    sseUrl = `${server.url}/api/v1/mcp/sse`;
    alice = await server.createUser();
    bob = await server.createUser();
  });
  afterEach(() => {
    for (const r of open.splice(0)) r.close();
  });
  after(async () => server.close());

  it("refuses a connect without a valid token with 401 and a Bearer challenge", async () => {
    const a = await raw(sseUrl, { method: "GET", headers: { accept: "text/event-stream" } });
    expect(a.status).to.equal(401);
    expect(a.headers["www-authenticate"]).to.match(/^Bearer /);
    expect(a.json.error.data.code).to.equal("unauthorized");
  });

  it("refuses a foreign Host with 403", async () => {
    const a = await raw(sseUrl, { method: "GET", headers: { accept: "text/event-stream", host: "evil.example.com", authorization: `Bearer ${alice.token}` } });
    expect(a.status).to.equal(403);
  });

  it("opens with an `endpoint` event naming a same-origin POST URL with a stream id", async () => {
    const s = await connect(alice.token);
    expect(s.response.status).to.equal(200);
    expect(s.response.headers.get("content-type")).to.match(/^text\/event-stream/);
    expect(s.response.headers.get("ratelimit-policy")).to.contain('"sse"');
    const endpoint = await s.endpoint();
    expect(endpoint).to.match(/^\/api\/v1\/mcp\/sse\/messages\?stream=[0-9a-f-]{36}$/);
    expect(s.events[0]!.event).to.equal("endpoint");
  });

  it("answers posted messages with 202 and delivers the JSON-RPC response as a `message` event", async () => {
    const s = await connect(alice.token);
    const endpoint = await s.endpoint();
    const init = await post(endpoint, alice.token, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.status).to.equal(202);
    expect((await s.reply(1)).result.protocolVersion).to.equal("2024-11-05");
    expect((await post(endpoint, alice.token, { jsonrpc: "2.0", method: "notifications/initialized" })).status).to.equal(202);
    await post(endpoint, alice.token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } });
    expect((await s.reply(2)).result.structuredContent.user_id).to.equal(alice.id);
    await post(endpoint, alice.token, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "nope", arguments: {} } });
    expect((await s.reply(3)).error.code).to.equal(-32602);
  });

  it("refuses a POST with another user's token (403), without a token (401), and to an unknown stream (404)", async () => {
    const s = await connect(alice.token);
    const endpoint = await s.endpoint();
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    const other = await post(endpoint, bob.token, ping);
    expect(other.status).to.equal(403);
    expect(other.json.error.data.code).to.equal("forbidden_stream");
    expect((await post(endpoint, undefined, ping)).status).to.equal(401);
    const unknown = await post("/api/v1/mcp/sse/messages?stream=00000000-0000-4000-8000-000000000000", alice.token, ping);
    expect(unknown.status).to.equal(404);
    expect(unknown.json.error.data.code).to.equal("unknown_stream");
    // Nothing reached the stream.
    await new Promise((r) => setTimeout(r, 100));
    expect(s.messages().filter((m) => m.id === 9)).to.have.length(0);
    // Another token of the same user may post.
    const second = await alice.tokenWith(["meta:whoami"]);
    expect((await post(endpoint, second, ping)).status).to.equal(202);
    expect((await s.reply(9)).result).to.deep.equal({});
  });

  it("checks posted messages like POST /api/v1/mcp: envelope, protocol version, scope", async () => {
    const s = await connect(alice.token);
    const endpoint = await s.endpoint();
    const batch = await post(endpoint, alice.token, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(batch.status).to.equal(400);
    expect(batch.json.error.code).to.equal(-32600);
    const badVersion = await raw(`${server.url}${endpoint}`, {
      headers: { ...JSON_HEADERS, authorization: `Bearer ${alice.token}`, "mcp-protocol-version": "1999-01-01" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
    });
    expect(badVersion.status).to.equal(400);
    const narrow = await alice.tokenWith(["read:wallets"]);
    expect((await post(endpoint, narrow, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } })).status).to.equal(202);
    const denied = await s.reply(3);
    expect(denied.result.isError).to.equal(true);
    expect(denied.result.content[0].text).to.include('"code":"insufficient_scope"').and.include('"scope":"meta:whoami"');
  });

  it("pushes each committed write of the stream's user as notifications/finance/changed with the audit id as event id", async () => {
    const s = await connect(alice.token);
    await s.endpoint();
    const entry = await publishChange(server, alice.id, { tool: "create_wallet" });
    await publishChange(server, bob.id); // another user's change never reaches alice
    const ev = await s.until(() => s.events.find((e) => e.id === entry.id), 5000, "the change event");
    expect(ev.event).to.equal("message");
    expect(JSON.parse(ev.data)).to.deep.equal({
      jsonrpc: "2.0",
      method: "notifications/finance/changed",
      params: {
        audit_id: entry.id,
        tool: "create_wallet",
        action: "create",
        resource_type: "wallet",
        resource_id: entry.resource_id,
        created_at: entry.created_at,
      },
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(s.events.filter((e) => e.id !== undefined)).to.have.length(1);
  });

  it("replays what a client missed when it reconnects with Last-Event-ID, then goes live without duplicates", async () => {
    const first = await connect(alice.token);
    await first.endpoint();
    const seen = await publishChange(server, alice.id);
    await first.until(() => first.events.find((e) => e.id === seen.id), 5000, "the first change");
    first.close();

    const missed = [await publishChange(server, alice.id), await publishChange(server, alice.id)];
    await publishChange(server, bob.id);

    const again = await connect(alice.token, { "last-event-id": seen.id });
    expect(await again.endpoint()).to.match(/stream=/);
    await again.until(() => again.events.filter((e) => e.id).length >= 2, 5000, "the replayed changes");
    const live = await publishChange(server, alice.id);
    await again.until(() => again.events.find((e) => e.id === live.id), 5000, "the live change");
    expect(again.events.filter((e) => e.id).map((e) => e.id)).to.deep.equal([...missed.map((m) => m.id), live.id]);
    expect(again.events[0]!.event, "endpoint stays the first event").to.equal("endpoint");
  });

  it("delivers real writes made with MCP tools/call, and replays them after a reconnect", async () => {
    const createWallet = async (name: string) => {
      const a = await server.rpc(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "create_wallet", arguments: { name, type: "checking", currency: "USD", idempotency_key: randomUUID() } },
        },
        alice.token,
      );
      expect(a.body.result?.isError, JSON.stringify(a.body)).to.not.equal(true);
      return a.body.result.structuredContent as { audit_id: string; wallet: { id: string } };
    };
    const s = await connect(alice.token);
    await s.endpoint();
    const first = await createWallet("Live wallet");
    const ev = await s.until(() => s.events.find((e) => e.id === String(first.audit_id)), 5000, "the write's change event");
    expect(JSON.parse(ev.data).params).to.include({ tool: "create_wallet", action: "create", resource_type: "wallet", resource_id: first.wallet.id });
    s.close();

    const missed = await createWallet("Missed wallet");
    const again = await connect(alice.token, { "last-event-id": String(first.audit_id) });
    const replayed = await again.until(() => again.events.find((e) => e.id === String(missed.audit_id)), 5000, "the missed write");
    expect(JSON.parse(replayed.data).params.resource_id).to.equal(missed.wallet.id);
  });

  it("ignores a Last-Event-ID that no audit id can be", async () => {
    const s = await connect(alice.token, { "last-event-id": "not-an-id" });
    await s.endpoint();
    const entry = await publishChange(server, alice.id);
    await s.until(() => s.events.find((e) => e.id === entry.id), 5000, "the change");
    expect(s.events.filter((e) => e.id)).to.have.length(1);
  });

  describe("keep-alive and token checks", () => {
    let quick: Server;
    let quickUrl: string;
    before(async () => {
      quick = createServer(createApp(server.services, { sseKeepAliveMs: 40 }));
      await new Promise<void>((resolve) => quick.listen(0, "127.0.0.1", resolve));
      quickUrl = `http://127.0.0.1:${(quick.address() as AddressInfo).port}/api/v1/mcp/sse`;
    });
    after(async () => {
      quick.closeAllConnections();
      await new Promise<void>((resolve) => quick.close(() => resolve()));
    });

    it("sends keep-alive comments at the configured interval", async () => {
      const s = await connect(alice.token, {}, quickUrl);
      await s.endpoint();
      await s.until(() => s.comments.length >= 2, 3000, "two keep-alive comments");
      expect(s.comments[0]).to.equal("keep-alive");
    });

    it("closes the stream once its token is revoked", async () => {
      const token = await alice.tokenWith(["meta:whoami"]);
      const s = await connect(token, {}, quickUrl);
      await s.endpoint();
      const tokenId = (await server.call("whoami", {}, token)).token_id;
      expect(await revokeToken(server.db, alice.id, tokenId)).to.equal(true);
      await s.until(() => s.ended, 3000, "the stream to end");
    });
  });

  describe("two server instances over one Postgres", function () {
    let other: Server;
    let otherUrl: string;
    let close: () => Promise<void>;
    before(async function () {
      if (engine !== "postgres") return this.skip();
      // A second process's worth of services on the same database: its own pool, its own LISTEN connection.
      const db2 = createDb(server.config.databaseUrl);
      const services2 = await createServices(server.config, db2);
      other = createServer(createApp(services2));
      await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
      otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/api/v1/mcp/sse`;
      close = async () => {
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
        await closeServices(services2);
        await db2.destroy();
      };
    });
    after(async () => close?.());

    it("delivers a change committed through one instance to a stream open on the other, and replays there", async () => {
      const s = await connect(alice.token, {}, otherUrl);
      await s.endpoint();
      const entry = await publishChange(server, alice.id);
      await s.until(() => s.events.find((e) => e.id === entry.id), 5000, "the change from the other instance");
      s.close();
      const missed = await publishChange(server, alice.id);
      const again = await connect(alice.token, { "last-event-id": entry.id }, otherUrl);
      await again.until(() => again.events.find((e) => e.id === missed.id), 5000, "the replayed change");
    });
  });

  describe("connect rate limit", () => {
    let limited: TestServer;
    before(async () => (limited = await startTestServer({ RATE_LIMIT_SSE_PER_MINUTE: "2" })));
    after(async () => limited.close());

    it("allows the configured connects per minute per token, then 429 with Retry-After", async () => {
      const u = await limited.createUser();
      const url = `${limited.url}/api/v1/mcp/sse`;
      const a = await connect(u.token, {}, url);
      const b = await connect(u.token, {}, url);
      expect([a.response.status, b.response.status]).to.deep.equal([200, 200]);
      const c = await raw(url, { method: "GET", headers: { accept: "text/event-stream", authorization: `Bearer ${u.token}` } });
      expect(c.status).to.equal(429);
      expect(Number(c.headers["retry-after"])).to.be.greaterThan(0);
      expect(c.json.error.data.code).to.equal("rate_limited");
    });
  });

  describe("open-stream caps", () => {
    let capped: TestServer;
    before(async () => (capped = await startTestServer({ SSE_MAX_STREAMS_PER_TOKEN: "2", SSE_MAX_STREAMS_PER_USER: "3" })));
    after(async () => capped.close());

    it("refuses a connect beyond the per-token and per-user caps with 429 and Retry-After, and frees a place when a stream closes", async () => {
      const u = await capped.createUser();
      const url = `${capped.url}/api/v1/mcp/sse`;
      const refused = async (token: string) => {
        const r = await raw(url, { method: "GET", headers: { accept: "text/event-stream", authorization: `Bearer ${token}` } });
        expect(r.status).to.equal(429);
        expect(Number(r.headers["retry-after"])).to.be.greaterThan(0);
        expect(r.json.error.data.code).to.equal("rate_limited");
        return r.json.error.message as string;
      };
      const first = await connect(u.token, {}, url);
      await connect(u.token, {}, url);
      expect(await refused(u.token)).to.match(/this token has 2 \(at most 2\)/);
      const second = await u.tokenWith(["meta:whoami"]);
      await connect(second, {}, url);
      expect(await refused(second)).to.match(/this user has 3 \(at most 3\)/);
      // Another user is not affected.
      const other = await capped.createUser();
      expect((await connect(other.token, {}, url)).response.status).to.equal(200);
      // Closing a stream frees its place once the server sees the connection end.
      first.close();
      const deadline = Date.now() + 3000;
      while (capped.services.streams.openCount("", u.id).user > 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect((await connect(u.token, {}, url)).response.status).to.equal(200);
    });
  });
});
