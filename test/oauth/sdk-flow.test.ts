/**
 * The whole OAuth flow as a real MCP client runs it (docs/oauth.md): the official TypeScript SDK (1.x)
 * discovers the server from a 401, registers (Dynamic Client Registration, or a Client ID Metadata
 * Document served over https by a local server), authorizes with PKCE, exchanges the code, lists and
 * calls tools, refreshes an expired token, and steps up on insufficient_scope. The consent step is
 * driven through GET /oauth/authorize and completeAuthorization (what the consent page calls), and once
 * in headless Chromium on the consent page itself.
 */
import https from "node:https";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { KNOWN_SCOPES, listTokens } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { hasProgram, skipWithout } from "../helpers/external.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { consent, docServer, MemoryProvider, selfSignedCert, type DocServer } from "./helpers.js";

/** Connects with the provider; the first time, runs the authorization (consent with `scopes`) and connects again. */
async function connect(server: TestServer, provider: MemoryProvider, userId: string, scopes: string[]): Promise<Client> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
    return client;
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  expect(provider.authorizationUrl, "the SDK asked for an authorization").to.be.instanceOf(URL);
  const back = await consent(server, provider.authorizationUrl!, userId, scopes);
  expect(back.searchParams.get("state")).to.equal(provider.stateValue);
  expect(back.searchParams.get("iss")).to.equal(server.url);
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider });
  await transport.finishAuth(back.searchParams.get("code")!);
  const again = new Client({ name: "oauth-test", version: "1.0.0" });
  await again.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
  return again;
}

describe(`OAuth with the MCP SDK client (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  let tls: { key: string; cert: string };
  let cimd: DocServer;
  before(async function () {
    // The client metadata documents are served over TLS with a throwaway certificate that openssl makes.
    if (!hasProgram("openssl", ["version"])) skipWithout(this, "openssl", "no openssl on PATH");
    server = await startTestServer({ OAUTH_CIMD_ALLOW_PRIVATE: "true" });
    user = await server.createUser();
    tls = selfSignedCert();
    // The server fetches metadata documents with Node's https agent: trust the test certificate there.
    https.globalAgent.options.ca = tls.cert;
    cimd = await docServer((req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          client_id: `${base}${req.url}`,
          client_name: "CIMD test client",
          redirect_uris: ["http://127.0.0.1:33418/callback"],
          token_endpoint_auth_method: "none",
        }),
      );
    }, tls);
  });
  after(async () => {
    delete https.globalAgent.options.ca;
    await cimd?.close();
    await server?.close();
  });

  it("registers by DCR, authorizes with PKCE, and lists and calls tools", async () => {
    const provider = new MemoryProvider();
    const client = await connect(server, provider, user.id, ["meta:whoami", "read:wallets"]);
    expect(provider.clientInfo?.client_id).to.match(/^fmcp-client-/);
    const auth = provider.authorizationUrl!;
    expect(auth.searchParams.get("code_challenge_method")).to.equal("S256");
    expect(auth.searchParams.get("resource")).to.equal(server.mcpUrl);
    expect(provider.savedTokens?.access_token).to.match(/^fmcp_/);
    expect(provider.savedTokens?.refresh_token).to.match(/^fmcr_/);
    expect(provider.savedTokens?.scope).to.equal("meta:whoami read:wallets");

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include.members(["whoami", "list_wallets"]);
    expect(tools.map((t) => t.name)).not.to.include("list_transactions");
    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect(who.isError).to.not.equal(true);
    expect((who.structuredContent as { user_id: string }).user_id).to.equal(user.id);
    await client.close();

    // The token is one of the person's MCP tokens, listed with the others.
    const listed = (await listTokens(server.db, user.id)).filter((t) => t.grant_id);
    expect(listed.map((t) => t.name)).to.include("SDK test client (OAuth)");
  });

  it("with the consent step in a real browser (headless Chromium on the consent page): DCR, PKCE, tools", async function () {
    const browser = await launchBrowser(this);
    try {
      const email = `sdk-${Date.now()}@example.test`;
      const person = await createUser(server.db, { email, password: "correct horse battery staple" });
      const provider = new MemoryProvider({ name: "SDK browser client" });
      const first = new Client({ name: "oauth-test", version: "1.0.0" });
      await first.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider })).catch((err) => {
        if (!(err instanceof UnauthorizedError)) throw err;
      });
      const page = await browser.newPage();
      // The client's redirect URI has no server here: the browser's request to it is the answer.
      const redirected = page.waitForRequest((r) => r.url().startsWith(provider.redirectUrl));
      await page.goto(provider.authorizationUrl!.toString());
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill("correct horse battery staple");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Connect SDK browser client?" }).waitFor();
      await page.getByRole("button", { name: "Allow" }).click();
      const back = new URL((await redirected).url());
      expect(back.searchParams.get("state")).to.equal(provider.stateValue);
      await new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }).finishAuth(back.searchParams.get("code")!);
      const client = new Client({ name: "oauth-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect((who.structuredContent as { user_id: string }).user_id).to.equal(person.id);
      await client.close();
    } finally {
      await browser.close();
    }
  });

  it("uses a Client ID Metadata Document served over https as the client id", async () => {
    const url = `${cimd.url}/clients/finance-test.json`;
    const provider = new MemoryProvider({ clientMetadataUrl: url });
    const hitsBefore = cimd.hits;
    const client = await connect(server, provider, user.id, ["meta:whoami"]);
    expect(provider.clientInfo?.client_id).to.equal(url);
    expect(provider.authorizationUrl!.searchParams.get("client_id")).to.equal(url);
    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect((who.structuredContent as { user_id: string }).user_id).to.equal(user.id);
    await client.close();
    // Fetched once at authorize; the token exchange used the cached document.
    expect(cimd.hits - hitsBefore).to.equal(1);
    expect((await listTokens(server.db, user.id)).map((t) => t.name)).to.include("CIMD test client (OAuth)");
  });

  it("refreshes an expired access token, rotating the refresh token", async () => {
    const provider = new MemoryProvider();
    const client = await connect(server, provider, user.id, ["meta:whoami"]);
    const first = { ...provider.savedTokens! };
    // The access token expires: the next call gets 401, the SDK refreshes and retries.
    await server
      .db("mcp_tokens")
      .where({ user_id: user.id })
      .whereNotNull("grant_id")
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const fresh = new Client({ name: "oauth-test", version: "1.0.0" });
    await fresh.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
    const who = await fresh.callTool({ name: "whoami", arguments: {} });
    expect((who.structuredContent as { user_id: string }).user_id).to.equal(user.id);
    expect(provider.savedTokens!.access_token).to.not.equal(first.access_token);
    expect(provider.savedTokens!.refresh_token).to.not.equal(first.refresh_token);
    // The previous access token no longer works (the grant's row has the new secret).
    const old = await server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, first.access_token);
    expect(old.status).to.equal(401);
    await client.close();
    await fresh.close();
  });

  it("steps up on insufficient_scope: the challenge names the token's scopes and the missing one", async () => {
    const provider = new MemoryProvider();
    const client = await connect(server, provider, user.id, ["read:wallets"]);
    const denied = await server.rpc(
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } },
      provider.savedTokens!.access_token,
      {
        "mcp-protocol-version": "2025-11-25",
      },
    );
    expect(denied.status).to.equal(403);
    expect(denied.headers.get("www-authenticate")).to.equal(
      `Bearer realm="finance-mcp", error="insufficient_scope", scope="meta:whoami read:wallets", resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/v1/mcp"`,
    );
    // SDK 1.32.2 answers the challenge by refreshing (a refresh cannot widen a grant), then gives up
    // with "Server returned 403 after trying upscoping"; the client then authorizes again with the
    // challenge's scope, and the consent page asks for both scopes.
    const failure = await client.callTool({ name: "whoami", arguments: {} }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(String(failure)).to.match(/403/);
    await client.close();
    provider.savedTokens = undefined;
    provider.authorizationUrl = undefined;
    const scope = /scope="([^"]+)"/.exec(denied.headers.get("www-authenticate")!)![1]!;
    expect(await auth(provider, { serverUrl: server.mcpUrl, scope })).to.equal("REDIRECT");
    expect(provider.authorizationUrl!.searchParams.get("scope")).to.equal("meta:whoami read:wallets");
    const upgraded = await connect(server, provider, user.id, ["meta:whoami", "read:wallets"]);
    const who = await upgraded.callTool({ name: "whoami", arguments: {} });
    expect((who.structuredContent as { user_id: string }).user_id).to.equal(user.id);
    await upgraded.close();
  });

  it("keeps static tokens working beside OAuth", async () => {
    const client = new Client({ name: "static", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${user.token}` } } }));
    const { tools } = await client.listTools();
    expect(tools.length).to.be.greaterThan(10);
    await client.close();
    expect(KNOWN_SCOPES.length).to.be.greaterThan(0);
  });
});
