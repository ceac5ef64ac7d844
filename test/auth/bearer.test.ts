/**
 * Presenting a token on POST /api/v1/mcp: 401 answers (missing, malformed, unknown, expired, revoked),
 * malformed tokens refused without touching the database, no tokens in URLs, secrets never echoed or
 * stored, last_used_at written at most once a minute, and whoami.
 */
import { createHash } from "node:crypto";
import { expect } from "chai";
import { authenticateBearer, createToken, KNOWN_SCOPES, LAST_USED_GRANULARITY_MS } from "../../src/auth/tokens.js";
import { generateToken } from "../../src/auth/token-format.js";
import { todayInTimeZone } from "../../src/calendar/time-zones.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const BASE_CHALLENGE = 'Bearer realm="finance-mcp", error="invalid_token"';
/** RFC 6750 §3.1: a request without any authentication information gets a challenge without an error code. */
const NO_CREDENTIALS_CHALLENGE = 'Bearer realm="finance-mcp"';

describe(`bearer tokens (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser({ timezone: "Asia/Tokyo", currency: "JPY" });
  });
  after(async () => server.close());
  // With OAuth on (the default, on a loopback Host) the challenge also names the resource metadata.
  const challenge = (base = BASE_CHALLENGE) => `${base}, resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/v1/mcp"`;

  const whoami = (token?: string, headers: Record<string, string> = {}) => server.rpc({ jsonrpc: "2.0", id: 7, method: "whoami" }, token, headers);

  /** Runs fn and returns the SQL of every query the server's knex sent meanwhile. */
  async function queriesDuring(fn: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const listener = (q: { sql: string }) => seen.push(q.sql);
    // Authentication runs on the side connection (src/db/side.ts; the request pool itself on Postgres).
    const dbs = [...new Set([server.db, server.services.side])];
    for (const db of dbs) db.on("query", listener);
    try {
      await fn();
    } finally {
      for (const db of dbs) db.off("query", listener);
    }
    return seen;
  }

  function expectUnauthorized(answer: { status: number; headers: Headers; body: any }, base = BASE_CHALLENGE) {
    expect(answer.status).to.equal(401);
    expect(answer.headers.get("www-authenticate")).to.equal(challenge(base));
    expect(answer.body.jsonrpc).to.equal("2.0");
    expect(answer.body.id).to.equal(7);
    expect(answer.body.error.code).to.equal(-32001);
    expect(answer.body.error.data).to.include({ code: "unauthorized", retryable: false });
  }

  it("accepts a valid token", async () => {
    const answer = await whoami(user.token);
    expect(answer.status).to.equal(200);
    expect(answer.body.result.user_id).to.equal(user.id);
  });

  it("answers a missing token with 401, the Bearer challenge without an error code, and a JSON-RPC error", async () => {
    expectUnauthorized(await whoami(), NO_CREDENTIALS_CHALLENGE);
  });

  it("refuses a Basic header on the MCP endpoint with the challenge of a request without credentials", async () => {
    expectUnauthorized(await whoami(undefined, { authorization: `Basic ${Buffer.from("a@b.c:password").toString("base64")}` }), NO_CREDENTIALS_CHALLENGE);
  });

  describe("malformed tokens are refused before any database query", () => {
    const valid = generateToken();
    const badChecksum = valid.slice(0, -1) + (valid.endsWith("0") ? "1" : "0");
    const cases: Array<[string, string]> = [
      ["a wrong prefix", `ghp_${valid.slice(5)}`],
      ["a wrong checksum", badChecksum],
      ["a short token", valid.slice(0, 20)],
      ["a token with a bad character", `${valid.slice(0, 10)}-${valid.slice(11)}`],
      ["a JWT-looking string", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"],
    ];
    for (const [label, token] of cases) {
      it(`${label}: 401 and zero queries`, async () => {
        let answer!: Awaited<ReturnType<typeof whoami>>;
        const queries = await queriesDuring(async () => (answer = await whoami(token)));
        expectUnauthorized(answer);
        expect(answer.body.error.message).to.include("malformed");
        expect(queries).to.deep.equal([]);
        // The secret-looking text is never echoed.
        expect(JSON.stringify(answer.body)).not.to.include(token);
      });
    }

    it("while a well-formed unknown token does reach the database (the spy works)", async () => {
      let answer!: Awaited<ReturnType<typeof whoami>>;
      const queries = await queriesDuring(async () => (answer = await whoami(generateToken())));
      expectUnauthorized(answer);
      expect(queries.some((sql) => sql.includes("mcp_tokens"))).to.equal(true);
    });
  });

  describe("unknown, expired and revoked tokens", () => {
    it("all get 401 with the same body, which never contains the token", async () => {
      const unknown = generateToken();
      const expired = (
        await createToken(
          server.db,
          user.id,
          { name: "old", scopes: [...KNOWN_SCOPES], expiresInDays: 1 },
          server.config.tokenPepper,
          new Date(Date.now() - 2 * 86_400_000),
        )
      ).token;
      const revoked = await createToken(server.db, user.id, { name: "gone", scopes: [...KNOWN_SCOPES], expiresInDays: 30 }, server.config.tokenPepper);
      expect((await whoami(revoked.token)).status).to.equal(200);
      await server.db("mcp_tokens").where({ id: revoked.token_id }).update({ revoked_at: new Date().toISOString() });

      const answers = await Promise.all([whoami(unknown), whoami(expired), whoami(revoked.token)]);
      for (const a of answers) expectUnauthorized(a);
      expect(answers[1]!.body).to.deep.equal(answers[0]!.body);
      expect(answers[2]!.body).to.deep.equal(answers[0]!.body);
      for (const [a, t] of [
        [answers[0]!, unknown],
        [answers[1]!, expired],
        [answers[2]!, revoked.token],
      ] as const) {
        expect(JSON.stringify(a.body)).not.to.include(t);
        expect(JSON.stringify(a.body)).not.to.include(t.slice(5, 25));
      }
    });

    it("expiry is checked on every request: a token becomes invalid the moment it expires", async () => {
      const t = await createToken(server.db, user.id, { name: "soon", scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper);
      expect((await whoami(t.token)).status).to.equal(200);
      await server
        .db("mcp_tokens")
        .where({ id: t.token_id })
        .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
      expectUnauthorized(await whoami(t.token));
    });

    it("expiry is read on the service's clock, the one every other check of time uses", async () => {
      // Two days on, by the injected clock: a token that expires in one day is no longer valid.
      const later = await startTestServer({}, { now: () => new Date(Date.now() + 2 * 86_400_000) });
      try {
        const other = await later.createUser();
        const t = await createToken(later.db, other.id, { name: "a day", scopes: ["meta:whoami"], expiresInDays: 1 }, later.config.tokenPepper);
        const a = await later.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, t.token);
        expect(a.status, JSON.stringify(a.body)).to.equal(401);
      } finally {
        await later.close();
      }
    });
  });

  it("never accepts a token in the URL", async () => {
    for (const query of ["access_token", "token", "auth", "bearer"]) {
      const res = await fetch(`${server.mcpUrl}?${query}=${encodeURIComponent(user.token)}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "whoami" }),
      });
      // A token in the URL is not a credential: the answer is that of a request without any.
      expectUnauthorized({ status: res.status, headers: res.headers, body: await res.json() }, NO_CREDENTIALS_CHALLENGE);
    }
  });

  describe("the SSE transport", () => {
    /** Opens GET /api/v1/mcp/sse and returns the messages URL of its endpoint event, or the refusal. */
    async function openStream(token?: string): Promise<{ status: number; headers: Headers; body?: any; endpoint?: string; close(): void }> {
      const controller = new AbortController();
      const res = await fetch(`${server.url}/api/v1/mcp/sse`, {
        headers: { accept: "text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal: controller.signal,
      });
      const close = () => controller.abort();
      if (res.status !== 200) return { status: res.status, headers: res.headers, body: await res.json().catch(() => undefined), close };
      const reader = res.body!.getReader();
      let text = "";
      const deadline = Date.now() + 5000;
      while (!/event: endpoint\ndata: ([^\n]+)\n/.test(text) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const endpoint = /event: endpoint\ndata: ([^\n]+)\n/.exec(text)?.[1];
      return { status: 200, headers: res.headers, endpoint, close };
    }

    const postTo = (endpoint: string, token?: string) =>
      fetch(`${server.url}${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "whoami" }),
      }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json().catch(() => undefined) }));

    it("needs a bearer token to connect and on every posted message", async function () {
      const refused = await openStream();
      expectUnauthorized({ ...refused, body: { ...refused.body, id: 7 } }, NO_CREDENTIALS_CHALLENGE);
      refused.close();

      const stream = await openStream(user.token);
      try {
        expect(stream.status).to.equal(200);
        expect(stream.endpoint).to.be.a("string");
        const other = await server.createUser();
        const revoked = await createToken(server.db, user.id, { name: "revoked", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, server.config.tokenPepper);
        await server.db("mcp_tokens").where({ id: revoked.token_id }).update({ revoked_at: new Date().toISOString() });

        for (const token of [undefined, "fmcp_nonsense", generateToken(), revoked.token]) {
          const answer = await postTo(stream.endpoint!, token);
          expect(answer.status, String(token)).to.equal(401);
          expect(answer.headers.get("www-authenticate")).to.equal(challenge(token === undefined ? NO_CREDENTIALS_CHALLENGE : BASE_CHALLENGE));
          expect(answer.body.error.data.code).to.equal("unauthorized");
        }
        // Another user's valid token may not post into this user's stream.
        expect((await postTo(stream.endpoint!, other.token)).status).to.equal(403);
        // The owner's token is accepted (the answer travels on the stream).
        expect((await postTo(stream.endpoint!, user.token)).status).to.equal(202);
        // A token in the URL is ignored.
        const inUrl = await postTo(`${stream.endpoint!}&access_token=${encodeURIComponent(user.token)}`);
        expect(inUrl.status).to.equal(401);
      } finally {
        stream.close();
      }
    });
  });

  it("stores only the token's SHA-256 (or HMAC) hash, never the token", async () => {
    const created = await createToken(server.db, user.id, { name: "stored", scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper);
    const rows = await server.db("mcp_tokens").select();
    const dump = JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v));
    expect(dump).not.to.include(created.token.slice(5, 37));
    const row = rows.find((r) => r.id === created.token_id);
    expect(row.token_hash).to.equal(createHash("sha256").update(created.token).digest("hex"));
  });

  describe("last_used_at", () => {
    it("is written on first use and not again within the minute", async () => {
      const t = await createToken(server.db, user.id, { name: "used", scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper);
      const updates = (sql: string[]) => sql.filter((s) => /^update/i.test(s.trim()) && s.includes("mcp_tokens"));
      const first = await queriesDuring(() => whoami(t.token));
      expect(updates(first)).to.have.length(1);
      const usedAt = (await server.db("mcp_tokens").where({ id: t.token_id }).first("last_used_at")).last_used_at;
      expect(usedAt).to.be.a("string");
      const second = await queriesDuring(async () => {
        for (let i = 0; i < 3; i++) await whoami(t.token);
      });
      expect(updates(second)).to.deep.equal([]);
      expect((await server.db("mcp_tokens").where({ id: t.token_id }).first("last_used_at")).last_used_at).to.equal(usedAt);
    });

    it("is written again once a minute has passed (clock injected)", async () => {
      const t = await createToken(server.db, user.id, { name: "clock", scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper);
      const header = `Bearer ${t.token}`;
      const t0 = new Date(Date.now() + 1000);
      const lastUsed = async () => (await server.db("mcp_tokens").where({ id: t.token_id }).first("last_used_at")).last_used_at;
      await authenticateBearer(server.db, header, server.config.tokenPepper, t0);
      expect(await lastUsed()).to.equal(t0.toISOString());
      await authenticateBearer(server.db, header, server.config.tokenPepper, new Date(t0.getTime() + 30_000));
      expect(await lastUsed()).to.equal(t0.toISOString());
      await authenticateBearer(server.db, header, server.config.tokenPepper, new Date(t0.getTime() + LAST_USED_GRANULARITY_MS - 1));
      expect(await lastUsed()).to.equal(t0.toISOString());
      const t1 = new Date(t0.getTime() + LAST_USED_GRANULARITY_MS + 1000);
      await authenticateBearer(server.db, header, server.config.tokenPepper, t1);
      expect(await lastUsed()).to.equal(t1.toISOString());
    });
  });

  it("whoami returns the user, the token, its scopes and expiry, and the user's timezone and currency", async () => {
    const t = await createToken(
      server.db,
      user.id,
      { name: "whoami test", scopes: ["meta:whoami", "read:wallets"], expiresInDays: 7 },
      server.config.tokenPepper,
    );
    const answer = await whoami(t.token);
    expect(answer.status).to.equal(200);
    // The user's today in their timezone, on the server's clock (the test server's real one).
    const today = todayInTimeZone("Asia/Tokyo", new Date());
    expect(answer.body.result).to.deep.equal({
      user_id: user.id,
      token_id: t.token_id,
      token_name: "whoami test",
      scopes: ["meta:whoami", "read:wallets"],
      expires_at: t.expires_at,
      timezone: "Asia/Tokyo",
      today,
      default_currency: "JPY",
      // No PUBLIC_URL: the origin this request reached.
      account_url: `${server.url}/account`,
    });
  });
});
