/**
 * The OAuth protocol's refusals (docs/oauth.md), over real HTTP on both engines: PKCE (missing, plain, wrong
 * verifier), codes used twice, redirect URIs not registered (loopback ports excepted), resources other
 * than this server's, expired and revoked tokens, refresh-token reuse revoking the grant, the person
 * denying, the token-creation limit, and registrations that cannot be accepted.
 */
import { createHash, randomBytes } from "node:crypto";
import { expect } from "chai";
import { revokeToken } from "../../src/auth/tokens.js";
import { completeAuthorization, describePendingAuthorization, PendingAuthorizationError } from "../../src/oauth/authorize.js";
import { listConnectedClients, revokeConnectedClient } from "../../src/oauth/grants.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { pendingIdFor } from "./helpers.js";

const REDIRECT = "http://127.0.0.1:40001/cb";

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function register(server: TestServer, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

function authorizeUrl(server: TestServer, params: Record<string, string | undefined>): string {
  const u = new URL(`${server.url}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

async function token(
  server: TestServer,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe(`OAuth refusals (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  let clientId: string;
  before(async () => {
    // Many grants are made here; the limit has its own test below.
    server = await startTestServer({ RATE_LIMIT_TOKENS_PER_HOUR: "1000" });
    user = await server.createUser();
    const reg = await register(server, {
      client_name: "Negative tests",
      redirect_uris: [REDIRECT, "https://app.example/cb"],
      token_endpoint_auth_method: "none",
    });
    expect(reg.status).to.equal(201);
    clientId = reg.body.client_id;
  });
  after(async () => server.close());

  /** A code for `scopes`, with its verifier. */
  async function codeFor(scopes: string[], extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const id = await pendingIdFor(
      authorizeUrl(server, {
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s1",
        resource: server.mcpUrl,
        scope: scopes.join(" "),
        ...extra,
      }),
    );
    const back = new URL(await completeAuthorization(server.services, id, user.id, scopes));
    return { code: back.searchParams.get("code")!, verifier, back };
  }

  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    token(server, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
      resource: server.mcpUrl,
      ...extra,
    });

  const whoami = (accessToken: string) => server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, accessToken);

  async function grant(scopes = ["meta:whoami"]) {
    const { code, verifier } = await codeFor(scopes);
    const answer = await exchange(code, verifier);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as { access_token: string; refresh_token: string; scope: string; expires_in: number; token_type: string };
  }

  it("issues a bearer token with the granted scopes, an hour's expiry and no-store", async () => {
    const { code, verifier, back } = await codeFor(["meta:whoami"]);
    expect(back.searchParams.get("iss")).to.equal(server.url);
    expect(back.searchParams.get("state")).to.equal("s1");
    const answer = await exchange(code, verifier);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("cache-control")).to.equal("no-store");
    expect(answer.body).to.include({ token_type: "Bearer", scope: "meta:whoami" });
    expect(answer.body.expires_in).to.be.within(3590, 3600);
    expect((await whoami(answer.body.access_token)).status).to.equal(200);
  });

  it("refuses a wrong code_verifier, and the code is used up by the attempt", async () => {
    const { code, verifier } = await codeFor(["meta:whoami"]);
    const wrong = await exchange(code, pkce().verifier);
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error).to.equal("invalid_grant");
    expect((await exchange(code, verifier)).body.error).to.equal("invalid_grant");
  });

  it("refuses a missing code_verifier", async () => {
    const { code } = await codeFor(["meta:whoami"]);
    const answer = await token(server, { grant_type: "authorization_code", code, client_id: clientId, redirect_uri: REDIRECT });
    expect(answer.status).to.equal(400);
    expect(answer.body.error).to.be.oneOf(["invalid_grant", "invalid_request"]);
  });

  it("refuses a reused code; without the client's verifier the reuse also revokes the token it produced", async () => {
    const { code, verifier } = await codeFor(["meta:whoami"]);
    const first = await exchange(code, verifier);
    expect(first.status).to.equal(200);
    // The client's own retry (its verifier, within CODE_RETRY_WINDOW_S): refused, its token kept.
    const retry = await exchange(code, verifier);
    expect(retry.status).to.equal(400);
    expect(retry.body.error).to.equal("invalid_grant");
    expect((await whoami(first.body.access_token)).status).to.equal(200);
    const again = await exchange(code, pkce().verifier);
    expect(again.status).to.equal(400);
    expect(again.body.error).to.equal("invalid_grant");
    expect((await whoami(first.body.access_token)).status).to.equal(401);
    expect((await token(server, { grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: clientId })).body.error).to.equal(
      "invalid_grant",
    );
  });

  it("refuses an expired code", async () => {
    const { code, verifier } = await codeFor(["meta:whoami"]);
    await server
      .db("oauth_codes")
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .whereNull("used_at");
    expect((await exchange(code, verifier)).body.error).to.equal("invalid_grant");
  });

  it("refuses a code exchanged by another client or with another redirect_uri", async () => {
    const other = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
    const a = await codeFor(["meta:whoami"]);
    expect((await exchange(a.code, a.verifier, { client_id: other })).body.error).to.equal("invalid_grant");
    const b = await codeFor(["meta:whoami"]);
    expect((await exchange(b.code, b.verifier, { redirect_uri: "https://app.example/cb" })).body.error).to.equal("invalid_request");
  });

  it("shows an unregistered redirect URI to the person instead of redirecting there", async () => {
    const { challenge } = pkce();
    for (const redirect of ["https://evil.example/cb", "http://127.0.0.1:40001/other", "https://app.example/cb/extra", "http://localhost:40001/cb"]) {
      const res = await fetch(
        authorizeUrl(server, { response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256" }),
        { redirect: "manual" },
      );
      expect(res.status, redirect).to.equal(400);
      expect(res.headers.get("location")).to.equal(null);
      expect(await res.text()).to.include("redirect_uri");
    }
    // A loopback redirect URI matches on any port (RFC 8252 §7.3).
    const any = await fetch(
      authorizeUrl(server, {
        response_type: "code",
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:51234/cb",
        code_challenge: challenge,
        code_challenge_method: "S256",
      }),
      { redirect: "manual" },
    );
    expect(any.status).to.equal(302);
    expect(any.headers.get("location")).to.match(/^\/oauth\/consent\?request=/);
  });

  it("answers an unknown client at the token endpoint with 401 invalid_client (so the client registers again)", async () => {
    const answer = await token(server, { grant_type: "refresh_token", refresh_token: "fmcr_x", client_id: "fmcp-client-forgotten" });
    expect(answer.status).to.equal(401);
    expect(answer.body.error).to.equal("invalid_client");
  });

  it("refuses an unknown client on the page, never redirecting", async () => {
    const res = await fetch(authorizeUrl(server, { response_type: "code", client_id: "fmcp-client-nope", redirect_uri: REDIRECT }), { redirect: "manual" });
    expect(res.status).to.equal(400);
    expect(res.headers.get("location")).to.equal(null);
  });

  it("shows request errors on a page with the pages' security headers, never redirecting to the client (RFC 9700 §4.11.2)", async () => {
    const { challenge } = pkce();
    const base = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "xyz" };
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ code_challenge: undefined, code_challenge_method: undefined }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "read:everything" }, "invalid_scope"],
      [{ resource: "https://other.example/api/v1/mcp" }, "invalid_target"],
    ];
    for (const [change, error] of cases) {
      const res = await fetch(authorizeUrl(server, { ...base, ...change }), { redirect: "manual" });
      expect(res.status, error).to.equal(400);
      expect(res.headers.get("location"), error).to.equal(null);
      expect(res.headers.get("content-type")).to.match(/^text\/html/);
      expect(res.headers.get("content-security-policy")).to.include("default-src 'none'").and.include("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).to.equal("DENY");
      expect(res.headers.get("cache-control")).to.equal("no-store");
      expect(res.headers.get("x-content-type-options")).to.equal("nosniff");
      const html = await res.text();
      expect(html, error).to.include(`<code>${error}</code>`);
      expect(html).to.not.include("127.0.0.1:40001");
    }
  });

  it("refuses a token request for another resource", async () => {
    const { code, verifier } = await codeFor(["meta:whoami"]);
    const answer = await exchange(code, verifier, { resource: "https://other.example/api/v1/mcp" });
    expect(answer.status).to.equal(400);
    expect(answer.body.error).to.equal("invalid_target");
  });

  it("refuses on the MCP endpoint a token issued for another resource", async () => {
    const issued = await grant();
    expect((await whoami(issued.access_token)).status).to.equal(200);
    await server.db("mcp_tokens").where({ user_id: user.id }).whereNotNull("grant_id").update({ resource: "https://other.example/api/v1/mcp" });
    const answer = await whoami(issued.access_token);
    expect(answer.status).to.equal(401);
    expect(answer.headers.get("www-authenticate")).to.include('error="invalid_token"');
  });

  it("refuses an expired access token with 401", async () => {
    const issued = await grant();
    await server
      .db("mcp_tokens")
      .whereNotNull("grant_id")
      .where({ user_id: user.id })
      .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect((await whoami(issued.access_token)).status).to.equal(401);
  });

  it("revokes the grant through the revocation endpoint, by access or refresh token", async () => {
    for (const which of ["access_token", "refresh_token"] as const) {
      const issued = await grant();
      const res = await fetch(`${server.url}/oauth/revoke`, { method: "POST", body: new URLSearchParams({ token: issued[which], client_id: clientId }) });
      expect(res.status, which).to.equal(200);
      expect((await whoami(issued.access_token)).status, which).to.equal(401);
      expect((await token(server, { grant_type: "refresh_token", refresh_token: issued.refresh_token, client_id: clientId })).body.error, which).to.equal(
        "invalid_grant",
      );
    }
    // Unknown tokens: 200 all the same. Unknown clients: 401.
    expect(
      (await fetch(`${server.url}/oauth/revoke`, { method: "POST", body: new URLSearchParams({ token: "fmcr_nothing", client_id: clientId }) })).status,
    ).to.equal(200);
    expect(
      (await fetch(`${server.url}/oauth/revoke`, { method: "POST", body: new URLSearchParams({ token: "fmcr_nothing", client_id: "fmcp-client-nope" }) }))
        .status,
    ).to.equal(401);
  });

  it("revoking the token like any other (DELETE /api/v1/mcp-tokens) ends the grant too", async () => {
    const issued = await grant();
    const row = await server.db("mcp_tokens").where({ user_id: user.id }).whereNotNull("grant_id").orderBy("created_at", "desc").first("id");
    expect(await revokeToken(server.db, user.id, row.id)).to.equal(true);
    expect((await whoami(issued.access_token)).status).to.equal(401);
    expect((await token(server, { grant_type: "refresh_token", refresh_token: issued.refresh_token, client_id: clientId })).body.error).to.equal(
      "invalid_grant",
    );
  });

  it("lists the person's connected clients, and revoking one ends its grant; another user's cannot be revoked", async () => {
    const issued = await grant(["meta:whoami", "read:wallets"]);
    const [newest] = await listConnectedClients(server.db, user.id);
    expect(newest).to.include({ client_id: clientId, client_name: "Negative tests", revoked_at: null });
    expect(newest!.scopes).to.deep.equal(["meta:whoami", "read:wallets"]);
    expect(newest!.token_id).to.match(/^tok_/);
    const other = await server.createUser();
    expect(await revokeConnectedClient(server.db, other.id, newest!.grant_id)).to.equal(false);
    expect((await whoami(issued.access_token)).status).to.equal(200);
    expect(await revokeConnectedClient(server.db, user.id, newest!.grant_id)).to.equal(true);
    expect((await whoami(issued.access_token)).status).to.equal(401);
    expect((await listConnectedClients(server.db, user.id))[0]!.revoked_at).to.be.a("string");
    expect(await listConnectedClients(server.db, other.id)).to.deep.equal([]);
  });

  it("rotates refresh tokens, and a reused one revokes the whole grant", async () => {
    const issued = await grant();
    const refreshed = await token(server, { grant_type: "refresh_token", refresh_token: issued.refresh_token, client_id: clientId, resource: server.mcpUrl });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect(refreshed.body.refresh_token).to.not.equal(issued.refresh_token);
    expect((await whoami(refreshed.body.access_token)).status).to.equal(200);
    // The old refresh token again, once its grace is over: refused, and the grant is gone (newest access
    // and refresh tokens too).
    await server
      .db("oauth_grants")
      .whereNotNull("previous_refresh_used_at")
      .update({ previous_refresh_used_at: new Date(Date.now() - 61_000).toISOString() });
    const reuse = await token(server, { grant_type: "refresh_token", refresh_token: issued.refresh_token, client_id: clientId });
    expect(reuse.status).to.equal(400);
    expect(reuse.body.error).to.equal("invalid_grant");
    expect((await whoami(refreshed.body.access_token)).status).to.equal(401);
    expect((await token(server, { grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token, client_id: clientId })).body.error).to.equal(
      "invalid_grant",
    );
  });

  it("never widens a grant on refresh, but may narrow it", async () => {
    const issued = await grant(["meta:whoami", "read:wallets"]);
    const wider = await token(server, {
      grant_type: "refresh_token",
      refresh_token: issued.refresh_token,
      client_id: clientId,
      scope: "meta:whoami read:wallets write:wallets",
    });
    expect(wider.body.error).to.equal("invalid_scope");
    const again = await grant(["meta:whoami", "read:wallets"]);
    const narrower = await token(server, { grant_type: "refresh_token", refresh_token: again.refresh_token, client_id: clientId, scope: "read:wallets" });
    expect(narrower.body.scope).to.equal("read:wallets");
    expect((await whoami(narrower.body.access_token)).status).to.equal(403);
  });

  it("sends a denial back as access_denied, and a pending request is answered once", async () => {
    const { challenge } = pkce();
    const id = await pendingIdFor(
      authorizeUrl(server, {
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "d",
      }),
    );
    const pending = await describePendingAuthorization(server.services, id);
    expect(pending).to.include({ clientId, clientName: "Negative tests", redirectHost: "127.0.0.1:40001", resource: server.mcpUrl, clientKind: "dcr" });
    const back = new URL(await completeAuthorization(server.services, id, user.id, null));
    expect(back.searchParams.get("error")).to.equal("access_denied");
    expect(back.searchParams.get("state")).to.equal("d");
    expect(back.searchParams.get("iss")).to.equal(server.url);
    expect(await describePendingAuthorization(server.services, id)).to.equal(undefined);
    let thrown: unknown;
    await completeAuthorization(server.services, id, user.id, ["meta:whoami"]).catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(PendingAuthorizationError);
  });

  it("grants only scopes the client asked for", async () => {
    const { challenge } = pkce();
    const id = await pendingIdFor(
      authorizeUrl(server, {
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        scope: "read:wallets",
      }),
    );
    let thrown: unknown;
    await completeAuthorization(server.services, id, user.id, ["read:wallets", "write:wallets"]).catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(PendingAuthorizationError);
    await completeAuthorization(server.services, id, user.id, []).catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(PendingAuthorizationError);
  });

  it("refuses registrations it cannot honour", async () => {
    const bad: Array<Record<string, unknown>> = [
      {},
      { redirect_uris: [] },
      { redirect_uris: ["http://app.example/cb"] },
      { redirect_uris: ["javascript:alert(1)"] },
      { redirect_uris: ["https://app.example/cb#frag"] },
      { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" },
    ];
    for (const body of bad) {
      const answer = await register(server, body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error).to.be.oneOf(["invalid_client_metadata", "invalid_redirect_uri"]);
    }
  });

  it("holds a confidential client to its secret", async () => {
    const reg = await register(server, { client_name: "Confidential", redirect_uris: [REDIRECT] });
    expect(reg.body.token_endpoint_auth_method).to.equal("client_secret_basic");
    expect(reg.body.client_secret).to.be.a("string");
    const saved = clientId;
    clientId = reg.body.client_id;
    try {
      const a = await codeFor(["meta:whoami"]);
      const noSecret = await exchange(a.code, a.verifier);
      expect(noSecret.status).to.equal(401);
      expect(noSecret.body.error).to.equal("invalid_client");
      const b = await codeFor(["meta:whoami"]);
      const basic = Buffer.from(`${clientId}:${reg.body.client_secret}`).toString("base64");
      const ok = await token(
        server,
        { grant_type: "authorization_code", code: b.code, code_verifier: b.verifier, redirect_uri: REDIRECT },
        { authorization: `Basic ${basic}` },
      );
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    } finally {
      clientId = saved;
    }
  });
});

describe(`OAuth and the token-creation limit (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_TOKENS_PER_HOUR: "3" });
    user = await server.createUser(); // its token is the first of the hour
  });
  after(async () => server.close());

  it("counts a code exchange like a token creation, and a refresh not at all", async () => {
    const clientId = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
    const run = async () => {
      const { verifier, challenge } = pkce();
      const id = await pendingIdFor(
        authorizeUrl(server, { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256" }),
      );
      const back = new URL(await completeAuthorization(server.services, id, user.id, ["meta:whoami"]));
      return { back, verifier };
    };
    const first = await run();
    const issued = await token(server, {
      grant_type: "authorization_code",
      code: first.back.searchParams.get("code")!,
      code_verifier: first.verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(issued.status).to.equal(200);
    // Two consents now: the second already finds the hour's allowance taken once the first is exchanged.
    const second = await run();
    const third = await run();
    expect(third.back.searchParams.get("code")).to.be.a("string");
    const secondIssued = await token(server, {
      grant_type: "authorization_code",
      code: second.back.searchParams.get("code")!,
      code_verifier: second.verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(secondIssued.status).to.equal(200);
    const over = await token(server, {
      grant_type: "authorization_code",
      code: third.back.searchParams.get("code")!,
      code_verifier: third.verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(over.status).to.equal(429);
    expect(over.body.error).to.equal("temporarily_unavailable");
    expect(Number(over.headers.get("retry-after"))).to.be.greaterThan(0);
    const fourth = await run();
    expect(fourth.back.searchParams.get("error")).to.equal("temporarily_unavailable");
    // Refreshing creates nothing, so it works at the limit. (The second grant replaced the first: same client.)
    const refreshed = await token(server, { grant_type: "refresh_token", refresh_token: secondIssued.body.refresh_token, client_id: clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    const rows = await server.db("mcp_tokens").where({ user_id: user.id });
    expect(rows).to.have.length(3);
  });
});

describe(`OAuth requests without credentials are limited per address (${engine})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_OAUTH_PER_HOUR: "3" });
  });
  after(async () => server.close());

  it("refuses the 4th registration or authorization request of the hour with 429 and Retry-After", async () => {
    const ok = await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    expect(ok.status).to.equal(201);
    const { challenge } = pkce();
    const url = authorizeUrl(server, {
      response_type: "code",
      client_id: ok.body.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    expect((await fetch(url, { redirect: "manual" })).status).to.equal(302);
    expect((await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).status).to.equal(201);
    const over = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    expect(over.status).to.equal(429);
    expect(Number(over.headers.get("retry-after"))).to.be.greaterThan(0);
    expect((await over.json()).error).to.equal("temporarily_unavailable");
    const page = await fetch(url, { redirect: "manual" });
    expect(page.status).to.equal(429);
    expect(await page.text()).to.match(/Too many OAuth requests/);
    // The token endpoint and discovery are not counted.
    expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`)).status).to.equal(200);
  });
});
