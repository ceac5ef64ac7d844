/**
 * The consent form approves only when it says so: a POST without `decision` (or with another value)
 * denies, issues no code and sends the browser back with access_denied (docs/security.md, "Web sessions").
 */
import { createHash, randomBytes } from "node:crypto";
import { expect } from "chai";
import { createUser } from "../../src/auth/users.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";

const PASSWORD = "correct horse battery staple";
const REDIRECT_URI = "http://127.0.0.1:9/callback";

describe(`the consent decision (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let client: WebClient;
  let clientId: string;

  before(async () => {
    server = await startTestServer();
    const email = `consent-${randomBytes(4).toString("hex")}@example.test`;
    await createUser(server.db, { email, password: PASSWORD });
    const reg = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Decision Bot", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" }),
    });
    expect(reg.status).to.equal(201);
    clientId = (await reg.json()).client_id;
    client = new WebClient(server.url);
    expect((await client.signIn(email, PASSWORD)).status).to.equal(303);
  });
  after(async () => server?.close());

  /** Starts an authorization and opens its consent page; returns the pending request's id. */
  async function pendingRequest(): Promise<string> {
    const u = new URL(`${server.url}/oauth/authorize`);
    const params = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
      state: "s1",
      scope: "read:wallets",
      resource: `${server.url}/api/v1/mcp`,
    };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    const started = await client.get(`${u.pathname}${u.search}`);
    expect(started.location, started.text).to.match(/^\/oauth\/consent\?request=/);
    const page = await client.get(started.location!);
    expect(page.status).to.equal(200);
    return new URL(started.location!, server.url).searchParams.get("request")!;
  }

  for (const [label, decision] of [
    ["without a decision", undefined],
    ["with an empty decision", ""],
    ["with an unknown decision", "yes"],
  ] as const) {
    it(`a consent POST ${label} denies: access_denied, no code`, async () => {
      const request = await pendingRequest();
      const answer = await client.post("/oauth/consent", { request, scope: "read:wallets", ...(decision === undefined ? {} : { decision }) });
      expect(answer.status).to.equal(303);
      const to = new URL(answer.location!);
      expect(`${to.origin}${to.pathname}`).to.equal(REDIRECT_URI);
      expect(to.searchParams.get("error")).to.equal("access_denied");
      expect(to.searchParams.get("code")).to.equal(null);
      expect(await server.db("oauth_codes").select("code_hash")).to.deep.equal([]);
    });
  }

  it("decision=approve approves (the control)", async () => {
    const request = await pendingRequest();
    const answer = await client.post("/oauth/consent", { request, scope: "read:wallets", decision: "approve" });
    expect(answer.status).to.equal(303);
    expect(new URL(answer.location!).searchParams.get("code")).to.be.a("string");
  });
});
