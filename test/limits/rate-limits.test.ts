/**
 * The rate limits: 120 JSON-RPC messages per minute per token on POST /api/v1/mcp,
 * exactly, also with two server processes over one database; 30 SSE connects per minute per token;
 * 429 with Retry-After, RateLimit-Policy, RateLimit and data.retry_after_seconds; and limiting from
 * memory, not failing open nor with 500s, when the limiter's store fails.
 */
import { expect } from "chai";
import { loadConfig } from "../../src/config.js";
import { revokeToken } from "../../src/auth/tokens.js";
import { insertLoginUser, tokensApi } from "../auth/basic.js";
import { engine } from "../helpers/database.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";
import { startTestServer, type RpcAnswer, type TestServer, type TestUser } from "../helpers/server.js";

const LIMITS = { RATE_LIMIT_MCP_PER_MINUTE: "120", RATE_LIMIT_SSE_PER_MINUTE: "30" };

async function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const whoami = (url: string, token: string, id: number) => post(url, token, { jsonrpc: "2.0", id, method: "whoami" });

function expectLimited(a: RpcAnswer, policy = '"mcp";q=120;w=60') {
  expect(a.status).to.equal(429);
  const retryAfter = Number(a.headers.get("retry-after"));
  expect(retryAfter).to.be.within(1, 60);
  expect(a.headers.get("ratelimit-policy")).to.equal(policy);
  const m = /^"(\w+)";r=0;t=(\d+)$/.exec(a.headers.get("ratelimit") ?? "");
  expect(m, a.headers.get("ratelimit") ?? "(no RateLimit header)").to.not.equal(null);
  // Retry-After never points earlier than the reset the RateLimit header announces.
  expect(retryAfter).to.be.at.least(Number(m![2]));
  if (a.body !== undefined) {
    expect(a.body.error.code).to.equal(-32008);
    expect(a.body.error.data).to.include({ code: "rate_limited", retryable: true, retry_after_seconds: retryAfter });
  }
}

/** The other process's token cache, from its /metrics (METRICS=on). */
async function tokenCacheStats(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = { entries: 0, hits: 0, misses: 0, invalidations: 0 };
  for (const m of text.matchAll(/^finance_mcp_token_cache\{state="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

function tally(answers: RpcAnswer[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
}

describe(`rate limits (${engine})`, function () {
  this.timeout(120_000);

  it("defaults to the service description's numbers: 120/min MCP, 30/min SSE, 10/hour token creations", () => {
    expect(loadConfig({}).rateLimits).to.deep.equal({ mcpPerMinute: 120, ssePerMinute: 30, tokensPerHour: 10, oauthPerHour: 60 });
  });

  describe("one process", () => {
    let server: TestServer;
    let user: TestUser;
    before(async () => {
      server = await startTestServer(LIMITS);
      user = await server.createUser();
    });
    after(async () => server.close());

    it("lets exactly 120 of 150 rapid requests through; the rest get 429 with the headers", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => whoami(server.mcpUrl, token, i)));
      expect(tally(answers)).to.deep.equal({ 200: 120, 429: 30 });
      const remaining = answers
        .filter((a) => a.status === 200)
        .map((a) => {
          expect(a.headers.get("ratelimit-policy")).to.equal('"mcp";q=120;w=60');
          return Number(/^"mcp";r=(\d+);t=\d+$/.exec(a.headers.get("ratelimit") ?? "")![1]);
        })
        .sort((x, y) => x - y);
      expect(remaining).to.deep.equal(Array.from({ length: 120 }, (_, i) => i));
      for (const a of answers.filter((x) => x.status === 429)) expectLimited(a);

      // Another token of the same user has its own budget.
      expect((await whoami(server.mcpUrl, await user.tokenWith(["meta:whoami"]), 1)).status).to.equal(200);
    });

    it("counts every JSON-RPC message: notifications, tools/list and refused calls too", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      const mcp = { "mcp-protocol-version": "2025-11-25" };
      for (let i = 0; i < 116; i++) expect((await whoami(server.mcpUrl, token, i)).status).to.equal(200);
      // A call refused for scope (117), a notification (118), tools/list (119, 120).
      expect((await post(server.mcpUrl, token, { jsonrpc: "2.0", id: 1, method: "list_wallets", params: {} })).status).to.equal(403);
      expect((await post(server.mcpUrl, token, { jsonrpc: "2.0", method: "notifications/initialized" }, mcp)).status).to.equal(202);
      const list119 = await post(server.mcpUrl, token, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, mcp);
      expect(list119.headers.get("ratelimit")).to.match(/^"mcp";r=1;/);
      await post(server.mcpUrl, token, { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} }, mcp);
      expectLimited(await post(server.mcpUrl, token, { jsonrpc: "2.0", id: 4, method: "tools/list", params: {} }, mcp));
      expectLimited(await whoami(server.mcpUrl, token, 5));
    });

    it("limits SSE connects to 30 per minute per token", async function () {
      const token = await user.tokenWith(["meta:whoami"]);
      const connect = async () => {
        const controller = new AbortController();
        const res = await fetch(`${server.url}/api/v1/mcp/sse`, {
          headers: { accept: "text/event-stream", authorization: `Bearer ${token}` },
          signal: controller.signal,
        });
        const body = res.headers.get("content-type")?.includes("json") ? await res.json() : undefined;
        controller.abort();
        return { status: res.status, headers: res.headers, body } as RpcAnswer;
      };
      const first = await connect();
      expect(first.status).to.equal(200);
      for (let i = 2; i <= 30; i++) expect((await connect()).status, `connect ${i}`).to.equal(200);
      const refused = await connect();
      expectLimited(refused, '"sse";q=30;w=60');
      // The MCP endpoint has its own budget.
      expect((await whoami(server.mcpUrl, token, 1)).status).to.equal(200);
    });
  });

  describe("two server processes sharing one database", () => {
    let server: TestServer;
    let other: ServerProcess | undefined;
    let user: TestUser;
    before(async function () {
      this.timeout(60_000);
      server = await startTestServer(LIMITS);
      user = await server.createUser();
      other = await startServerProcess(server.database.url, { ...LIMITS, METRICS: "on" });
    });
    after(async () => {
      await other?.stop();
      await server.close();
    });

    it("lets exactly 120 of 150 through when each process takes half", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => whoami(i % 2 ? other!.mcpUrl : server.mcpUrl, token, i)));
      expect(tally(answers)).to.deep.equal({ 200: 120, 429: 30 });
      for (const a of answers.filter((x) => x.status === 429)) expectLimited(a);
      // Each process answered some of each: the count is shared, not per process.
      const fromOther = answers.filter((_, i) => i % 2 === 1);
      expect(fromOther.filter((a) => a.status === 200).length).to.be.greaterThan(0);
      expect(answers.filter((_, i) => i % 2 === 0 && _.status === 200).length).to.be.greaterThan(0);
    });

    it("revocation on one process takes effect on the other at the next request, though it cached the token", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      expect((await whoami(other!.mcpUrl, token, 1)).status).to.equal(200);
      expect((await whoami(other!.mcpUrl, token, 2)).status).to.equal(200);
      const before = await tokenCacheStats(other!.url);
      if (engine === "postgres") expect(before.hits, "the second call was answered from the cache").to.be.greaterThan(0);
      // Revoked by this process, as /account and DELETE /api/v1/mcp-tokens/<id> do.
      const tokens = (await server.db("mcp_tokens").where({ user_id: user.id }).whereNull("revoked_at").select("id")) as { id: string }[];
      for (const { id } of tokens) expect(await revokeToken(server.db, user.id, id)).to.equal(true);
      // The NOTIFY of the commit reaches the other process (milliseconds): wait for it, not for a time.
      if (engine === "postgres") while ((await tokenCacheStats(other!.url)).invalidations === before.invalidations) await new Promise((r) => setTimeout(r, 5));
      expect((await whoami(other!.mcpUrl, token, 3)).status).to.equal(401);
    });
  });

  describe("when the limiter's store fails", () => {
    let server: TestServer;
    let user: TestUser;
    before(async () => {
      server = await startTestServer(LIMITS);
      user = await server.createUser();
    });
    after(async () => server.close());

    it("keeps limiting from memory: no 500s, and at most the limit passes", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      for (let i = 0; i < 5; i++) expect((await whoami(server.mcpUrl, token, i)).status).to.equal(200);
      await server.db.schema.dropTable("rate_limits");

      const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => whoami(server.mcpUrl, token, i)));
      // The in-memory insurance limiter starts its own count when the store fails: exactly 120 more.
      expect(tally(answers)).to.deep.equal({ 200: 120, 429: 30 });
      for (const a of answers.filter((x) => x.status === 429)) expectLimited(a);
    });

    it("the per-address OAuth limit does not start over from memory: registrations answer 503 while the store fails", async () => {
      if (await server.db.schema.hasTable("rate_limits")) await server.db.schema.dropTable("rate_limits");
      const before = (await server.db("oauth_clients").count({ n: "*" }))[0]!.n;
      const res = await fetch(`${server.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "During outage", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }),
      });
      expect(res.status).to.equal(503);
      expect(res.headers.get("retry-after")).to.equal("5");
      expect(((await res.json()) as { error: string }).error).to.equal("temporarily_unavailable");
      expect((await server.db("oauth_clients").count({ n: "*" }))[0]!.n).to.equal(before);
    });

    it("the tokens endpoint and its login throttle keep working from memory too", async () => {
      const login = await insertLoginUser(server.db, "a password of some length");
      const ok = await tokensApi(server.url, "POST", { auth: login, body: { name: "during outage", scopes: ["meta:whoami"] } });
      expect(ok.status).to.equal(201);
      expect(ok.headers.get("ratelimit")).to.match(/^"tokens";r=9;/);
      const wrong = await tokensApi(server.url, "GET", { auth: { email: login.email, password: "wrong" } });
      expect(wrong.status).to.equal(401);
    });
  });
});
