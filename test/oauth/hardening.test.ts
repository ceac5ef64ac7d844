/**
 * OAuth under attack (docs/security.md "OAuth"), over real HTTP on both engines: metadata documents are
 * fetched only where the per-address limit counts them and never more than a few at once; request errors
 * stay on a page; redirect URIs, client names and client authentication are checked strictly; refresh
 * tokens survive a lost answer and a too-wide scope; a replayed code revokes its grant even while the
 * first exchange runs; a new grant for a client ends the earlier ones. Each test fails on bb8ba47.
 */
import { createHash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { expect } from "chai";
import { completeAuthorization, describePendingAuthorization } from "../../src/oauth/authorize.js";
import { CLIENT_IDLE_DAYS, deleteIdleClients } from "../../src/oauth/clients.js";
import { CIMD_MAX_CONCURRENT_PER_HOST, FetchBusyError, FetchGate } from "../../src/oauth/fetch-gate.js";
import { listConnectedClients } from "../../src/oauth/grants.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { docServer, pendingIdFor, type DocServer } from "./helpers.js";

const REDIRECT = "http://127.0.0.1:40003/cb";

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

async function post(server: TestServer, path: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as any };
}

type Issued = { access_token: string; refresh_token: string; scope: string };

describe(`OAuth under attack (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  let clientId: string;
  let docs: DocServer;
  /** Responses of /silent/… held open until released. */
  const held: ServerResponse[] = [];
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_TOKENS_PER_HOUR: "1000", OAUTH_CIMD_ALLOW_PRIVATE: "true" });
    user = await server.createUser();
    clientId = (await register(server, { client_name: "Hardening", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
    docs = await docServer((req, res, base) => {
      if ((req.url ?? "").startsWith("/silent")) return void held.push(res);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ client_id: `${base}${req.url}`, client_name: "Doc client", redirect_uris: [REDIRECT] }));
    });
  });
  after(async () => {
    for (const res of held) res.destroy();
    await docs.close();
    await server.close();
  });

  async function grantFor(client: string, scopes: string[]): Promise<Issued> {
    const { verifier, challenge } = pkce();
    const id = await pendingIdFor(
      authorizeUrl(server, {
        response_type: "code",
        client_id: client,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        scope: scopes.join(" "),
      }),
    );
    const code = new URL(await completeAuthorization(server.services, id, user.id, scopes)).searchParams.get("code")!;
    const answer = await post(server, "/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: client,
      redirect_uri: REDIRECT,
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body as Issued;
  }
  const refresh = (token: string, extra: Record<string, string> = {}, client = clientId) =>
    post(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: token, client_id: client, ...extra });
  const whoami = async (accessToken: string) => (await server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, accessToken)).status;

  describe("client metadata documents", () => {
    it("answers a metadata-document client with no stored row invalid_client at /oauth/token and /oauth/revoke, fetching nothing", async () => {
      const before = docs.hits;
      for (let i = 0; i < 5; i++) {
        const id = `${docs.url}/never-authorized/${i}.json`;
        const t = await post(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: "fmcr_x", client_id: id });
        expect(t.status).to.equal(401);
        expect(t.body.error).to.equal("invalid_client");
        const r = await post(server, "/oauth/revoke", { token: "fmcr_x", client_id: id });
        expect(r.status).to.equal(401);
      }
      expect(docs.hits - before).to.equal(0);
      expect(await server.db("oauth_clients").where("client_id", "like", `${docs.url}/never-authorized/%`)).to.have.length(0);
    });

    it("shows the consent page from the stored client, never fetching the document again", async () => {
      const id = `${docs.url}/consent/client.json`;
      const pending = await pendingIdFor(authorizeUrl(server, { response_type: "code", client_id: id, redirect_uri: REDIRECT, ...challengeParams() }));
      const before = docs.hits;
      await server
        .db("oauth_clients")
        .where({ client_id: id })
        .update({ refresh_after: new Date(Date.now() - 1000).toISOString() });
      expect(await describePendingAuthorization(server.services, pending)).to.include({ clientName: "Doc client", clientKind: "cimd" });
      expect(docs.hits - before).to.equal(0);
    });

    it("fetches at most 2 documents at once for one address: the third request is refused with 503, and the same URL is fetched once", async () => {
      const before = docs.hits;
      const slow = [1, 2].map((i) =>
        fetch(authorizeUrl(server, { response_type: "code", client_id: `${docs.url}/silent/${i}.json`, redirect_uri: REDIRECT, ...challengeParams() }), {
          redirect: "manual",
        }),
      );
      // The same URL again joins the fetch already running (no third connection).
      const joined = fetch(
        authorizeUrl(server, { response_type: "code", client_id: `${docs.url}/silent/1.json`, redirect_uri: REDIRECT, ...challengeParams() }),
        { redirect: "manual" },
      );
      for (let i = 0; i < 100 && held.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(held).to.have.length(2);
      const third = await fetch(
        authorizeUrl(server, { response_type: "code", client_id: `${docs.url}/silent/3.json`, redirect_uri: REDIRECT, ...challengeParams() }),
        {
          redirect: "manual",
        },
      );
      expect(third.status).to.equal(503);
      expect(third.headers.get("retry-after")).to.equal("5");
      expect(third.headers.get("content-security-policy")).to.include("frame-ancestors 'none'");
      expect(await third.text()).to.include("temporarily_unavailable");
      expect(docs.hits - before).to.equal(2);
      for (const res of held.splice(0)) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ client_id: `${docs.url}${res.req.url}`, redirect_uris: [REDIRECT] }));
      }
      for (const answer of await Promise.all([...slow, joined])) expect(answer.status).to.equal(302);
      expect(docs.hits - before).to.equal(2);
    });

    it("caps fetches per document host: 5 slow hosts asked by many addresses leave a slot for a legitimate client", async () => {
      const gate = new FetchGate();
      let release!: () => void;
      const wait = new Promise<void>((r) => (release = r));
      const held: Promise<unknown>[] = [];
      let refused = 0;
      for (let address = 1; address <= 20; address++) {
        for (let host = 1; host <= 5; host++) {
          try {
            held.push(gate.run(`https://slow${host}.example/${address}.json`, `198.51.100.${address}`, () => wait));
          } catch (err) {
            expect(err).to.be.instanceOf(FetchBusyError);
            refused++;
          }
        }
      }
      expect(gate.running).to.equal(5 * CIMD_MAX_CONCURRENT_PER_HOST);
      expect(refused).to.equal(100 - 5 * CIMD_MAX_CONCURRENT_PER_HOST);
      expect(() => gate.run("https://slow1.example/again.json", "203.0.113.9", () => wait)).to.throw(
        FetchBusyError,
        /already being fetched from slow1\.example/,
      );
      expect(await gate.run("https://client.example/meta.json", "203.0.113.7", async () => "fetched")).to.equal("fetched");
      release();
      await Promise.all(held);
      expect(gate.running).to.equal(0);
    });

    it("caps fetches for the whole process too", async () => {
      const gate = new FetchGate(2, 1);
      let release!: () => void;
      const wait = new Promise<void>((r) => (release = r));
      const a = gate.run("https://a.example/1", "10.0.0.1", () => wait);
      const b = gate.run("https://a.example/2", "10.0.0.2", () => wait);
      expect(() => gate.run("https://a.example/3", "10.0.0.3", () => wait)).to.throw(FetchBusyError);
      expect(() => gate.run("https://a.example/4", "10.0.0.1", () => wait)).to.throw(FetchBusyError);
      release();
      await Promise.all([a, b]);
      expect(gate.running).to.equal(0);
      await gate.run("https://a.example/3", "10.0.0.3", async () => undefined);
    });

    it(`deletes client rows unused for ${CLIENT_IDLE_DAYS} days, but not one whose grant can still refresh`, async () => {
      const old = new Date(Date.now() - (CLIENT_IDLE_DAYS + 1) * 86_400_000).toISOString();
      const idle = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      const held = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      await grantFor(held, ["meta:whoami"]);
      const fresh = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      await server.db("oauth_clients").whereIn("client_id", [idle, held]).update({ created_at: old, last_used_at: old });
      // A registration sweeps; so does the call itself.
      expect((await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).status).to.equal(201);
      expect(await deleteIdleClients(server.db, new Date())).to.equal(0);
      const left = (await server.db("oauth_clients").whereIn("client_id", [idle, held, fresh]).select("client_id")).map((r) => r.client_id);
      expect(left.sort()).to.deep.equal([held, fresh].sort());
    });

    it("notes when a client was last used (authorization, token, revocation)", async () => {
      const id = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      expect((await server.db("oauth_clients").where({ client_id: id }).first("last_used_at")).last_used_at).to.equal(null);
      await grantFor(id, ["meta:whoami"]);
      expect((await server.db("oauth_clients").where({ client_id: id }).first("last_used_at")).last_used_at).to.be.a("string");
    });
  });

  describe("registration and client authentication", () => {
    it("refuses redirect URIs with userinfo, hosts that are not DNS names or IP addresses, and schemes other than https, loopback http and reverse-DNS", async () => {
      for (const uri of [
        "https://a.example;sandbox/cb",
        "https://a.example,b.example/cb",
        "https://user:pw@app.example/cb",
        "https://user@app.example/cb",
        "https://a_b.example/cb",
        "ftp://app.example/cb",
        "myapp:/cb",
        "ms-word:ofe|u|https://app.example/doc",
        "ssh://app.example",
        "com.example.app://user@host/cb",
        "javascript:alert(1)",
      ]) {
        const answer = await register(server, { redirect_uris: [uri], token_endpoint_auth_method: "none" });
        expect(answer.status, uri).to.equal(400);
        expect(answer.body.error, uri).to.equal("invalid_redirect_uri");
      }
      for (const uri of [
        "https://app.example/cb",
        "https://xn--bcher-kva.example/cb",
        "https://203.0.113.7/cb",
        "https://[2001:db8::1]/cb",
        "http://127.0.0.1:9999/cb",
        "http://[::1]/cb",
        "com.example.app:/oauth2redirect",
        "cursor://anysphere.cursor-mcp/oauth/callback",
      ]) {
        const answer = await register(server, { redirect_uris: [uri], token_endpoint_auth_method: "none" });
        expect(answer.status, `${uri}: ${JSON.stringify(answer.body)}`).to.equal(201);
      }
    });

    it("never sends the browser to a stored redirect URI that today's rules refuse (a client registered before them)", async () => {
      const id = (await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      const row = await server.db("oauth_clients").where({ client_id: id }).first("metadata");
      const metadata = { ...JSON.parse(row.metadata), redirect_uris: ["https://a.example;sandbox/cb"] };
      await server
        .db("oauth_clients")
        .where({ client_id: id })
        .update({ metadata: JSON.stringify(metadata) });
      const res = await fetch(
        authorizeUrl(server, { response_type: "code", client_id: id, redirect_uri: "https://a.example;sandbox/cb", ...challengeParams() }),
        {
          redirect: "manual",
        },
      );
      expect(res.status).to.equal(400);
      expect(res.headers.get("location")).to.equal(null);
      expect(await res.text()).to.include("not a DNS name");
      const badUri = await register(server, { redirect_uris: [REDIRECT], client_uri: "https://a.example;sandbox/", token_endpoint_auth_method: "none" });
      expect(badUri.status).to.equal(400);
    });

    it("strips bidi and control characters from client names", async () => {
      const answer = await register(server, {
        client_name: "\u202Eelgoog\u202C Mail\u2066\u0007 Sync",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
      });
      expect(answer.status).to.equal(201);
      expect(answer.body.client_name).to.equal("elgoog Mail Sync");
      const onlyControls = await register(server, { client_name: "\u202E\u202C", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
      expect(onlyControls.status).to.equal(400);
    });

    it("refuses a request that uses two client authentication methods (RFC 6749 §2.3)", async () => {
      const reg = await register(server, { client_name: "Confidential", redirect_uris: [REDIRECT] });
      const basic = `Basic ${Buffer.from(`${reg.body.client_id}:${reg.body.client_secret}`).toString("base64")}`;
      const both = await post(server, "/oauth/revoke", { token: "fmcr_x", client_secret: reg.body.client_secret }, { authorization: basic });
      expect(both.status).to.equal(400);
      expect(both.body.error).to.equal("invalid_request");
      const other = await post(server, "/oauth/revoke", { token: "fmcr_x", client_id: clientId }, { authorization: basic });
      expect(other.status).to.equal(400);
      // One method alone works.
      expect((await post(server, "/oauth/revoke", { token: "fmcr_x" }, { authorization: basic })).status).to.equal(200);
      expect((await post(server, "/oauth/revoke", { token: "fmcr_x", client_id: reg.body.client_id, client_secret: reg.body.client_secret })).status).to.equal(
        200,
      );
      // At the token endpoint too, before the code is looked at.
      const tokenBoth = await post(
        server,
        "/oauth/token",
        { grant_type: "refresh_token", refresh_token: "fmcr_x", client_secret: reg.body.client_secret },
        { authorization: basic },
      );
      expect(tokenBoth.status).to.equal(400);
      expect(tokenBoth.body.error).to.equal("invalid_request");
    });
  });

  describe("refresh tokens", () => {
    it("refuses a wider scope with invalid_scope and leaves the refresh token usable", async () => {
      const issued = await grantFor(clientId, ["meta:whoami"]);
      const wider = await refresh(issued.refresh_token, { scope: "meta:whoami read:wallets" });
      expect(wider.status).to.equal(400);
      expect(wider.body.error).to.equal("invalid_scope");
      const plain = await refresh(issued.refresh_token);
      expect(plain.status, JSON.stringify(plain.body)).to.equal(200);
      expect(await whoami(plain.body.access_token)).to.equal(200);
    });

    it("trims and collapses whitespace in the requested scope", async () => {
      const issued = await grantFor(clientId, ["meta:whoami", "read:wallets"]);
      const answer = await refresh(issued.refresh_token, { scope: "  meta:whoami \t  read:wallets " });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body.scope).to.equal("meta:whoami read:wallets");
      const { challenge } = pkce();
      const id = await pendingIdFor(
        authorizeUrl(server, {
          response_type: "code",
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: "S256",
          scope: " meta:whoami  ",
        }),
      );
      expect((await describePendingAuthorization(server.services, id))!.requestedScopes).to.deep.equal(["meta:whoami"]);
    });

    it("lets a client that lost a refresh's answer retry with the previous token within the grace; the lost token is then superseded", async () => {
      const issued = await grantFor(clientId, ["meta:whoami"]);
      const lost = await refresh(issued.refresh_token);
      expect(lost.status).to.equal(200);
      const retry = await refresh(issued.refresh_token);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
      expect(await whoami(retry.body.access_token)).to.equal(200);
      // The retry's refresh token carries on.
      const next = await refresh(retry.body.refresh_token);
      expect(next.status).to.equal(200);
      // The lost answer's token, presented now, is a replay: the grant ends.
      const replay = await refresh(lost.body.refresh_token);
      expect(replay.body.error).to.equal("invalid_grant");
      expect(await whoami(next.body.access_token)).to.equal(401);
    });

    it("keeps the grant when two refreshes with the same token race", async () => {
      const issued = await grantFor(clientId, ["meta:whoami"]);
      const [a, b] = await Promise.all([refresh(issued.refresh_token), refresh(issued.refresh_token)]);
      expect([a.status, b.status], JSON.stringify([a.body, b.body])).to.deep.equal([200, 200]);
      // One chain stays alive: the answer written last.
      const statuses = [await whoami(a.body.access_token), await whoami(b.body.access_token)];
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      const live = statuses[0] === 200 ? a : b;
      expect((await refresh(live.body.refresh_token)).status).to.equal(200);
    });

    it("yields exactly one token when the client exchanges its code 8 times at once (all with its verifier)", async () => {
      for (let round = 0; round < 3; round++) {
        const { verifier, challenge } = pkce();
        const id = await pendingIdFor(
          authorizeUrl(server, {
            response_type: "code",
            client_id: clientId,
            redirect_uri: REDIRECT,
            code_challenge: challenge,
            code_challenge_method: "S256",
            scope: "meta:whoami",
          }),
        );
        const code = new URL(await completeAuthorization(server.services, id, user.id, ["meta:whoami"])).searchParams.get("code")!;
        const exchange = () =>
          post(server, "/oauth/token", { grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
        const answers = await Promise.all(Array.from({ length: 8 }, exchange));
        const ok = answers.filter((a) => a.status === 200);
        expect(ok.length, `round ${round}`).to.equal(1);
        for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error, `round ${round}`).to.equal("invalid_grant");
        expect(await whoami(ok[0]!.body.access_token), `round ${round}`).to.equal(200);
        // Presented again without the verifier (whoever has the code may not be the client): a replay, the grant ends (RFC 6749 §4.1.2).
        const replay = await post(server, "/oauth/token", {
          grant_type: "authorization_code",
          code,
          code_verifier: pkce().verifier,
          client_id: clientId,
          redirect_uri: REDIRECT,
        });
        expect(replay.status).to.equal(400);
        expect(await whoami(ok[0]!.body.access_token), `round ${round}`).to.equal(401);
      }
    });

    it("revokes the grant when a code is presented again without its verifier, even while its first exchange is running", async () => {
      for (let round = 0; round < 8; round++) {
        const { verifier, challenge } = pkce();
        const id = await pendingIdFor(
          authorizeUrl(server, {
            response_type: "code",
            client_id: clientId,
            redirect_uri: REDIRECT,
            code_challenge: challenge,
            code_challenge_method: "S256",
            scope: "meta:whoami",
          }),
        );
        const code = new URL(await completeAuthorization(server.services, id, user.id, ["meta:whoami"])).searchParams.get("code")!;
        const exchange = (codeVerifier: string) =>
          post(server, "/oauth/token", { grant_type: "authorization_code", code, code_verifier: codeVerifier, client_id: clientId, redirect_uri: REDIRECT });
        // A thief holds the code, not the client's verifier.
        const answers = await Promise.all([exchange(verifier), exchange(pkce().verifier)]);
        const ok = answers.filter((a) => a.status === 200);
        expect(ok.length, `round ${round}`).to.be.at.most(1);
        for (const a of ok) {
          expect(await whoami(a.body.access_token), `round ${round}`).to.equal(401);
          expect((await refresh(a.body.refresh_token)).body.error, `round ${round}`).to.equal("invalid_grant");
        }
        const row = await server.db("oauth_codes").where({ client_id: clientId }).orderBy("created_at", "desc").first("replayed_at");
        // When the thief's exchange used the code up first (and failed PKCE), no grant was made to revoke.
        if (ok.length > 0) expect(row.replayed_at, `round ${round}`).to.be.a("string");
      }
    });
  });

  describe("a new grant for a client", () => {
    it("ends the person's earlier grants for that client, and only those", async () => {
      const other = (await register(server, { client_name: "Other", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      const step = (await register(server, { client_name: "Step-up", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })).body.client_id;
      const otherGrant = await grantFor(other, ["meta:whoami"]);
      const narrow = await grantFor(step, ["meta:whoami"]);
      const wide = await grantFor(step, ["meta:whoami", "read:wallets"]);
      expect(await whoami(narrow.access_token)).to.equal(401);
      expect((await refresh(narrow.refresh_token, {}, step)).body.error).to.equal("invalid_grant");
      expect(await whoami(wide.access_token)).to.equal(200);
      expect(await whoami(otherGrant.access_token)).to.equal(200);
      const live = (await listConnectedClients(server.db, user.id)).filter((c) => !c.revoked_at && c.client_id === step);
      expect(live).to.have.length(1);
      expect(live[0]!.scopes).to.deep.equal(["meta:whoami", "read:wallets"]);
    });
  });
});

function challengeParams() {
  return { code_challenge: pkce().challenge, code_challenge_method: "S256" };
}

describe(`Metadata-document fetches and the per-address limit (${engine})`, () => {
  let server: TestServer;
  let docs: DocServer;
  before(async () => {
    server = await startTestServer({ OAUTH_CIMD_ALLOW_PRIVATE: "true", RATE_LIMIT_OAUTH_PER_HOUR: "2" });
    docs = await docServer((req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ client_id: `${base}${req.url}`, redirect_uris: [REDIRECT] }));
    });
  });
  after(async () => {
    await docs.close();
    await server.close();
  });

  it("fetches only within the address's counted authorization requests; token and revocation requests beyond it fetch nothing", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(
        authorizeUrl(server, { response_type: "code", client_id: `${docs.url}/limit/${i}.json`, redirect_uri: REDIRECT, ...challengeParams() }),
        {
          redirect: "manual",
        },
      );
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).to.deep.equal([302, 302, 429, 429]);
    for (let i = 4; i < 10; i++) {
      expect(
        (await post(server, "/oauth/token", { grant_type: "refresh_token", refresh_token: "fmcr_x", client_id: `${docs.url}/limit/${i}.json` })).status,
      ).to.equal(401);
    }
    expect(docs.hits).to.equal(2);
  });
});
