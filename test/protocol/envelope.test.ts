/** The HTTP and JSON-RPC envelope of POST /api/v1/mcp: every check before a method runs, in order. */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { JSON_HEADERS, raw } from "./helpers.js";

describe(`protocol: envelope and HTTP guards (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer({ MAX_BODY_BYTES: "2048" });
    user = await server.createUser();
  });
  after(async () => server.close());

  const auth = () => ({ ...JSON_HEADERS, authorization: `Bearer ${user.token}` });
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

  const batch = (messages: unknown, headers: Record<string, string> = {}) =>
    raw(server.mcpUrl, { headers: { ...auth(), ...headers }, body: JSON.stringify(messages) });

  it("refuses a batch under any revision but 2025-03-26 with -32600 (400)", async () => {
    for (const version of ["2025-11-25", "2025-06-18", "2026-07-28"]) {
      const a = await batch([{ jsonrpc: "2.0", id: 1, method: "ping" }], { "mcp-protocol-version": version });
      expect(a.status, version).to.equal(400);
      expect(a.json.error.code).to.equal(-32600);
      expect(a.json.error.data.code).to.equal("invalid_request");
      expect(a.json.id).to.equal(null);
    }
  });

  it("serves a 2025-03-26 batch (header or none): an array of the answers, in order, notifications without one", async () => {
    for (const headers of [{}, { "mcp-protocol-version": "2025-03-26" }] as Record<string, string>[]) {
      const a = await batch(
        [
          { jsonrpc: "2.0", id: "p", method: "ping" },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } },
          { jsonrpc: "1.0", id: 3, method: "ping" },
          { jsonrpc: "2.0", id: 4, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
          { jsonrpc: "2.0", id: 5, method: "whoami" },
        ],
        headers,
      );
      expect(a.status).to.equal(200);
      expect(a.json).to.be.an("array").with.length(5);
      expect(a.json[0]).to.deep.equal({ jsonrpc: "2.0", id: "p", result: {} });
      expect(a.json[1].id).to.equal(2);
      expect(a.json[1].result.structuredContent.user_id).to.equal(user.id);
      expect(a.json[2]).to.deep.include({ id: 3 });
      expect(a.json[2].error.code).to.equal(-32600);
      expect(a.json[3].id).to.equal(4);
      expect(a.json[3].error.code).to.equal(-32600);
      expect(a.json[4].result.user_id).to.equal(user.id);
    }
  });

  it("answers a 2025-03-26 batch of notifications only with 202 and no body", async () => {
    const a = await batch([
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
    ]);
    expect(a.status).to.equal(202);
    expect(a.text).to.equal("");
  });

  it("refuses an empty batch, an oversized one, and a batch without a valid token as a whole", async () => {
    expect((await batch([])).json.error.code).to.equal(-32600);
    const big = await batch(Array.from({ length: 101 }, () => 0)); // the count is checked before any element
    expect(big.status).to.equal(400);
    expect(big.json.error.data.expected).to.match(/100/);
    const noToken = await raw(server.mcpUrl, { headers: JSON_HEADERS, body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]) });
    expect(noToken.status).to.equal(401);
    expect(noToken.headers["www-authenticate"]).to.match(/^Bearer/);
  });

  it("answers a body that is not JSON with -32700 (400)", async () => {
    const a = await raw(server.mcpUrl, { headers: auth(), body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(a.status).to.equal(400);
    expect(a.json.error.code).to.equal(-32700);
    expect(a.json.error.data.code).to.equal("parse_error");
  });

  it("refuses a malformed envelope with -32600 naming the field", async () => {
    const a = await raw(server.mcpUrl, { headers: auth(), body: JSON.stringify({ jsonrpc: "1.0", id: 1, method: "ping" }) });
    expect(a.status).to.equal(400);
    expect(a.json.error).to.include({ code: -32600 });
    expect(a.json.error.data.field).to.equal("jsonrpc");
    expect(a.json.id).to.equal(1);
  });

  it("answers a body over MAX_BODY_BYTES with 413", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "calculate", arguments: { expression: "1+".repeat(2000) + "1" } },
    });
    const a = await raw(server.mcpUrl, { headers: auth(), body: big });
    expect(a.status).to.equal(413);
    expect(a.json.error.data.code).to.equal("payload_too_large");
  });

  it("answers 406 when Accept names neither application/json nor text/event-stream", async () => {
    const a = await raw(server.mcpUrl, { headers: { ...auth(), accept: "text/html" }, body: ping });
    expect(a.status).to.equal(406);
    expect(a.json.error.data.code).to.equal("not_acceptable");
  });

  it("serves a request without an Accept header (any media type, RFC 9110)", async () => {
    const { accept: _, ...headers } = auth();
    const a = await raw(server.mcpUrl, { headers, body: ping });
    expect(a.status).to.equal(200);
    expect(a.json.result).to.deep.equal({});
  });

  it("accepts Accept: application/json alone and text/event-stream alone", async () => {
    for (const accept of ["application/json", "text/event-stream"]) {
      const a = await raw(server.mcpUrl, { headers: { ...auth(), accept }, body: ping });
      expect(a.status, accept).to.equal(200);
      expect(a.json.result).to.deep.equal({});
    }
  });

  it("refuses a foreign Host with 403 (DNS rebinding)", async () => {
    const a = await raw(server.mcpUrl, { headers: { ...auth(), host: "evil.example.com" }, body: ping });
    expect(a.status).to.equal(403);
    expect(a.json.error.data.code).to.equal("forbidden_host");
  });

  it("refuses a foreign Origin with 403 and accepts a local one", async () => {
    const bad = await raw(server.mcpUrl, { headers: { ...auth(), origin: "http://evil.example.com" }, body: ping });
    expect(bad.status).to.equal(403);
    expect(bad.json.error.data.code).to.equal("forbidden_origin");
    const good = await raw(server.mcpUrl, { headers: { ...auth(), origin: `http://localhost:${new URL(server.url).port}` }, body: ping });
    expect(good.status).to.equal(200);
  });

  it("answers GET and DELETE on the endpoint with 405 (stateless: no GET stream, no sessions)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const a = await raw(server.mcpUrl, { method, headers: { accept: "text/event-stream", authorization: `Bearer ${user.token}` } });
      expect(a.status, method).to.equal(405);
      expect(a.headers.allow).to.equal("POST");
    }
  });

  it("refuses a missing or invalid token with 401 and a Bearer challenge", async () => {
    const none = await raw(server.mcpUrl, { headers: JSON_HEADERS, body: ping });
    expect(none.status).to.equal(401);
    expect(none.headers["www-authenticate"]).to.match(/^Bearer /);
    expect(none.json).to.deep.include({ jsonrpc: "2.0", id: 1 });
    expect(none.json.error.data.code).to.equal("unauthorized");
    const bad = await raw(server.mcpUrl, { headers: { ...JSON_HEADERS, authorization: "Bearer fmcp_nope" }, body: ping });
    expect(bad.status).to.equal(401);
  });

  it("serves rpc.discover without a token", async () => {
    const a = await raw(server.mcpUrl, { headers: JSON_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "rpc.discover" }) });
    expect(a.status).to.equal(200);
    expect(a.json.result.openrpc).to.be.a("string");
  });

  it("answers a notification with 202 and no body", async () => {
    const a = await raw(server.mcpUrl, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect(a.status).to.equal(202);
    expect(a.text).to.equal("");
  });

  it("refuses a request without an id that is not a notification (its result could not be read)", async () => {
    const a = await raw(server.mcpUrl, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", method: "whoami" }) });
    expect(a.status).to.equal(400);
    expect(a.json.error.code).to.equal(-32600);
    expect(a.json.error.data.field).to.equal("id");
  });

  it("answers an unknown method with -32601", async () => {
    const a = await raw(server.mcpUrl, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", id: "x", method: "logging/setLevel" }) });
    expect(a.status).to.equal(200);
    expect(a.json).to.deep.include({ id: "x" });
    expect(a.json.error.code).to.equal(-32601);
    expect(a.json.error.data.code).to.equal("method_not_found");
  });

  it("keeps direct OpenRPC calls working, with params by name and by position", async () => {
    const byName = await raw(server.mcpUrl, {
      headers: auth(),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "calculate", params: { expression: "2 * 21" } }),
    });
    expect(byName.status).to.equal(200);
    const byPosition = await raw(server.mcpUrl, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "calculate", params: ["2 * 21"] }) });
    expect(byPosition.json.result).to.deep.equal(byName.json.result);
    const who = await raw(server.mcpUrl, { headers: auth(), body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "whoami" }) });
    expect(who.json.result.user_id).to.equal(user.id);
  });

  it("answers direct-call errors as JSON-RPC errors with the data.code table", async () => {
    const a = await raw(server.mcpUrl, {
      headers: auth(),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "calculate", params: { expression: "2 *" } }),
    });
    expect(a.json.error.code).to.equal(-32010);
    expect(a.json.error.data.code).to.equal("calculation_error");
  });
});
