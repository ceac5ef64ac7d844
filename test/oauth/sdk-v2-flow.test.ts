/**
 * The OAuth flow with the v2 TypeScript SDK client (@modelcontextprotocol/client 2.4.0), which also
 * checks RFC 9207: finishAuth reads `iss` from the callback and refuses the code when it is not the
 * issuer discovery found. Registration by DCR, authorization, tools, refresh; both engines.
 */
import { expect } from "chai";
import { Client, IssuerMismatchError, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/client";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { consent, REDIRECT_URL } from "./helpers.js";

type Provider = OAuthClientProvider & { authorizationUrl?: URL; saved?: Record<string, unknown> };

function provider(): Provider {
  let info: unknown;
  let tokens: unknown;
  let verifier = "";
  const p: Provider = {
    get redirectUrl() {
      return REDIRECT_URL;
    },
    get clientMetadata() {
      return {
        client_name: "SDK v2 test client",
        redirect_uris: [REDIRECT_URL],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        application_type: "native",
      } as never;
    },
    clientInformation: () => info as never,
    saveClientInformation: (i: unknown) => void (info = i),
    tokens: () => tokens as never,
    saveTokens: (t: unknown) => {
      tokens = t;
      p.saved = t as Record<string, unknown>;
    },
    redirectToAuthorization: (url: URL) => void (p.authorizationUrl = url),
    saveCodeVerifier: (v: string) => void (verifier = v),
    codeVerifier: () => verifier,
    state: () => "v2-state",
  } as Provider;
  return p;
}

describe(`OAuth with the v2 MCP SDK client (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server.close());

  it("discovers, registers, authorizes (iss checked), exchanges, calls tools and refreshes", async () => {
    const p = provider();
    const first = new Client({ name: "v2-oauth-test", version: "1.0.0" });
    const failure = await first.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: p })).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(UnauthorizedError);
    const back = await consent(server, p.authorizationUrl!, user.id, ["meta:whoami", "read:wallets"]);

    // A callback whose iss is another issuer is refused before the code is used (mix-up defence).
    const forged = new URLSearchParams(back.searchParams);
    forged.set("iss", "https://evil.example");
    const mixup = await new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: p }).finishAuth(forged).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(mixup, "a wrong iss is refused").to.be.instanceOf(IssuerMismatchError);

    await new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: p }).finishAuth(back.searchParams);
    expect(p.saved?.access_token).to.match(/^fmcp_/);
    const client = new Client({ name: "v2-oauth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: p }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include.members(["whoami", "list_wallets"]);
    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect((who.structuredContent as { user_id: string }).user_id).to.equal(user.id);

    // Expired: the next call gets 401, the client refreshes and retries.
    const before = p.saved!.refresh_token;
    await server
      .db("mcp_tokens")
      .where({ user_id: user.id })
      .whereNotNull("grant_id")
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const again = await client.callTool({ name: "whoami", arguments: {} });
    expect((again.structuredContent as { user_id: string }).user_id).to.equal(user.id);
    expect(p.saved!.refresh_token).to.not.equal(before);
    await client.close();
  });
});
