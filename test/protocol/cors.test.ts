/** CORS (src/http/cors.ts): browser clients from ALLOWED_ORIGINS only; the public contract from anywhere. */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { JSON_HEADERS, raw } from "./helpers.js";

describe(`protocol: CORS (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  const allowed = "https://app.example.com";
  before(async () => {
    server = await startTestServer({ ALLOWED_ORIGINS: `http://localhost,${allowed}` });
    user = await server.createUser();
  });
  after(async () => server.close());

  const preflight = (origin: string, url = server.mcpUrl) =>
    raw(url, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name",
      },
    });

  it("answers a preflight from an allowed origin with 204 and the requested headers", async () => {
    for (const origin of [allowed, "http://localhost:5173"]) {
      const a = await preflight(origin);
      expect(a.status, origin).to.equal(204);
      expect(a.headers["access-control-allow-origin"]).to.equal(origin);
      expect(a.headers["access-control-allow-methods"]).to.include("POST");
      expect(a.headers["access-control-allow-headers"]).to.include("authorization").and.include("mcp-protocol-version").and.include("mcp-name");
      expect(a.headers.vary).to.match(/origin/i);
    }
  });

  it("keeps the 403 for a foreign origin, preflight or not, with no Access-Control headers", async () => {
    const p = await preflight("https://evil.example");
    expect(p.status).to.equal(403);
    expect(p.json.error.data.code).to.equal("forbidden_origin");
    expect(p.headers["access-control-allow-origin"]).to.equal(undefined);
    const post = await raw(server.mcpUrl, {
      headers: { ...JSON_HEADERS, origin: "https://evil.example", authorization: `Bearer ${user.token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(post.status).to.equal(403);
    expect(post.headers["access-control-allow-origin"]).to.equal(undefined);
  });

  it("exposes WWW-Authenticate, Retry-After, the RateLimit headers and Mcp-Session-Id to an allowed origin", async () => {
    const ok = await raw(server.mcpUrl, {
      headers: { ...JSON_HEADERS, origin: allowed, authorization: `Bearer ${user.token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(ok.status).to.equal(200);
    expect(ok.headers["access-control-allow-origin"]).to.equal(allowed);
    const exposed = String(ok.headers["access-control-expose-headers"]).toLowerCase().split(/,\s*/);
    expect(exposed).to.include.members(["www-authenticate", "retry-after", "ratelimit", "ratelimit-policy", "mcp-session-id"]);
    const noToken = await raw(server.mcpUrl, {
      headers: { ...JSON_HEADERS, origin: allowed },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
    });
    expect(noToken.status).to.equal(401);
    expect(noToken.headers["www-authenticate"]).to.match(/^Bearer/);
    expect(noToken.headers["access-control-allow-origin"]).to.equal(allowed);
  });

  it("answers the SSE path's preflight too", async () => {
    const a = await raw(`${server.url}/api/v1/mcp/sse`, {
      method: "OPTIONS",
      headers: { origin: allowed, "access-control-request-method": "GET", "access-control-request-headers": "authorization, last-event-id" },
    });
    expect(a.status).to.equal(204);
    expect(a.headers["access-control-allow-origin"]).to.equal(allowed);
  });

  it("serves the public openrpc.json to any origin (Access-Control-Allow-Origin: *)", async () => {
    const get = await raw(`${server.url}/api/v1/openrpc.json`, { method: "GET", headers: { origin: "https://playground.open-rpc.org" } });
    expect(get.status).to.equal(200);
    expect(get.headers["access-control-allow-origin"]).to.equal("*");
    expect(get.json.openrpc).to.be.a("string");
    const pre = await raw(`${server.url}/api/v1/openrpc.json`, {
      method: "OPTIONS",
      headers: { origin: "https://playground.open-rpc.org", "access-control-request-method": "GET" },
    });
    expect(pre.status).to.equal(204);
    expect(pre.headers["access-control-allow-origin"]).to.equal("*");
  });

  it("leaves a request without Origin as before (OPTIONS on the endpoint is 405)", async () => {
    const a = await raw(server.mcpUrl, { method: "OPTIONS" });
    expect(a.status).to.equal(405);
    expect(a.headers["access-control-allow-origin"]).to.equal(undefined);
  });
});
