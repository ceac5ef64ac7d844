/**
 * OAuth discovery (docs/oauth.md): Protected Resource Metadata (RFC 9728) at both well-known paths, the
 * Authorization Server Metadata (RFC 8414), resource_metadata in every 401 challenge, PUBLIC_URL, and
 * no OAuth at all when it is off for the request (OAUTH=off, or a Host that is not loopback without
 * PUBLIC_URL): 404s and the plain challenge, so static-token clients are not sent into OAuth.
 */
import { request as httpRequest } from "node:http";
import { expect } from "chai";
import { KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { loadConfig, ConfigError } from "../../src/config.js";
import { oauthUrls } from "../../src/oauth/urls.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** GET with a chosen Host header (fetch always sends the URL's). */
function getWithHost(
  url: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host, ...headers } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe(`OAuth discovery (${engine})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it("serves the protected resource metadata at the root and the path-suffixed well-known URL", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/v1/mcp"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get("access-control-allow-origin")).to.equal("*");
      const doc = await res.json();
      expect(doc).to.include({ resource: server.mcpUrl });
      expect(doc.authorization_servers).to.deep.equal([server.url]);
      expect(doc.scopes_supported).to.deep.equal([...KNOWN_SCOPES]);
      expect(doc.bearer_methods_supported).to.deep.equal(["header"]);
    }
  });

  it("serves the authorization server metadata", async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    expect(res.status).to.equal(200);
    const doc = await res.json();
    expect(doc).to.deep.include({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      grant_types_supported: ["authorization_code", "refresh_token"],
      response_types_supported: ["code"],
    });
    expect(doc.token_endpoint_auth_methods_supported).to.include("none");
    expect(doc.scopes_supported).to.deep.equal([...KNOWN_SCOPES]);
  });

  it("names the resource metadata in the 401 challenge (no error code without credentials, RFC 6750 §3.1)", async () => {
    const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(answer.status).to.equal(401);
    expect(answer.headers.get("www-authenticate")).to.equal(
      `Bearer realm="finance-mcp", resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/v1/mcp"`,
    );
  });

  it("answers the old SSE transport's 401 with the same challenge", async () => {
    const res = await fetch(`${server.url}/api/v1/mcp/sse`, { headers: { accept: "text/event-stream" } });
    expect(res.status).to.equal(401);
    expect(res.headers.get("www-authenticate")).to.include(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/v1/mcp"`);
    await res.body?.cancel();
  });

  it("has no OAuth for a Host that is not loopback when PUBLIC_URL is not set", async () => {
    const other = await startTestServer({ ALLOWED_HOSTS: "127.0.0.1,finance.internal" });
    try {
      const port = new URL(other.url).port;
      for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"]) {
        expect((await getWithHost(`${other.url}${path}`, `finance.internal:${port}`)).status, path).to.equal(404);
      }
      const mcp = await getWithHost(`${other.url}/api/v1/mcp/sse`, `finance.internal:${port}`, { accept: "text/event-stream" });
      expect(mcp.status).to.equal(401);
      expect(mcp.headers["www-authenticate"]).to.equal('Bearer realm="finance-mcp"');
    } finally {
      await other.close();
    }
  });

  it("has no OAuth with OAUTH=off", async () => {
    const off = await startTestServer({ OAUTH: "off" });
    try {
      for (const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/v1/mcp",
        "/.well-known/oauth-authorization-server",
        "/oauth/authorize",
      ]) {
        expect((await fetch(`${off.url}${path}`)).status, path).to.equal(404);
      }
      expect((await fetch(`${off.url}/oauth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token" }) })).status).to.equal(404);
      expect((await fetch(`${off.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).to.equal(404);
      const answer = await off.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      expect(answer.headers.get("www-authenticate")).to.equal('Bearer realm="finance-mcp"');
    } finally {
      await off.close();
    }
  });

  it("names itself after PUBLIC_URL behind a TLS proxy, whatever the Host", async () => {
    const proxied = await startTestServer({ PUBLIC_URL: "https://finance.example.com", ALLOWED_HOSTS: "127.0.0.1,finance.example.com" });
    try {
      const prm = await getWithHost(`${proxied.url}/.well-known/oauth-protected-resource/api/v1/mcp`, "finance.example.com");
      expect(JSON.parse(prm.body)).to.include({ resource: "https://finance.example.com/api/v1/mcp" });
      const as = JSON.parse((await getWithHost(`${proxied.url}/.well-known/oauth-authorization-server`, "finance.example.com")).body);
      expect(as).to.include({ issuer: "https://finance.example.com", token_endpoint: "https://finance.example.com/oauth/token" });
      const answer = await proxied.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      expect(answer.headers.get("www-authenticate")).to.include(
        'resource_metadata="https://finance.example.com/.well-known/oauth-protected-resource/api/v1/mcp"',
      );
    } finally {
      await proxied.close();
    }
  });

  it("derives the issuer from a loopback Host only", () => {
    const config = loadConfig({});
    expect(oauthUrls(config, { host: "localhost:8080" })).to.deep.equal({
      issuer: "http://localhost:8080",
      resource: "http://localhost:8080/api/v1/mcp",
      resourceMetadata: "http://localhost:8080/.well-known/oauth-protected-resource/api/v1/mcp",
      readResource: "http://localhost:8080/api/v1/mcp/read",
      readResourceMetadata: "http://localhost:8080/.well-known/oauth-protected-resource/api/v1/mcp/read",
    });
    expect(oauthUrls(config, { host: "[::1]:9000" })?.issuer).to.equal("http://[::1]:9000");
    expect(oauthUrls(config, { host: "127.0.0.1:80" })?.issuer).to.equal("http://127.0.0.1");
    for (const host of ["finance.example.com", "10.0.0.5:8080", "localhost/x", "127.0.0.1@evil.example", "", undefined]) {
      expect(oauthUrls(config, { host }), String(host)).to.equal(undefined);
    }
    expect(oauthUrls(loadConfig({ OAUTH: "off" }), { host: "localhost:8080" })).to.equal(undefined);
    expect(oauthUrls(loadConfig({ PUBLIC_URL: "https://f.example" }), { host: "anything" })?.resource).to.equal("https://f.example/api/v1/mcp");
  });

  it("accepts PUBLIC_URL over https, or http on loopback only", () => {
    expect(loadConfig({ PUBLIC_URL: "https://finance.example.com/" }).publicUrl).to.equal("https://finance.example.com");
    expect(loadConfig({ PUBLIC_URL: "http://127.0.0.1:8080" }).publicUrl).to.equal("http://127.0.0.1:8080");
    for (const bad of ["http://finance.example.com", "https://finance.example.com/mcp", "ftp://x.example", "not a url"]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).to.throw(ConfigError, /PUBLIC_URL must be/);
    }
  });
});
