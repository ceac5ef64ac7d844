/**
 * People with a full account for the account-deletion tests: a password, the demo ledger (wallets,
 * transactions with tags, budgets, a goal with contributions, bills: every write audited, with its
 * captured rows and stored answer), a categorisation rule, an exchange rate, a confirmed regular payment, an imported statement (its
 * import keys), a bank connection, a calendar feed, an OAuth client connected (code, grant, refresh token, access token)
 * and a web session; so that each of the person's tables holds rows before a deletion.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { expect } from "chai";
import { createCalendarFeed } from "../../src/auth/calendar-feeds.js";
import { authenticateBearer, createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { newSessionId, rememberCapabilities } from "../../src/mcp/client-capabilities.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { completeAuthorization } from "../../src/oauth/authorize.js";
import type { TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";
import { pendingIdFor } from "../oauth/helpers.js";

export const PASSWORD = "correct horse battery staple";
const REDIRECT = "http://127.0.0.1:33418/callback";

export interface Person {
  id: string;
  email: string;
  token: string;
  oauth: { accessToken: string; refreshToken: string; clientId: string };
  calendarSecret: string;
  web: WebClient;
}

async function form(url: string, params: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(params) });
  return { status: res.status, body: await res.json() };
}

/** An OAuth client registered and connected by the person: its access and refresh tokens. */
export async function connectClient(server: TestServer, userId: string): Promise<Person["oauth"]> {
  const reg = await fetch(`${server.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Deletion test client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  });
  const clientId = ((await reg.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${server.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "s",
    resource: server.mcpUrl,
    scope: "meta:whoami read:wallets",
  }))
    authorize.searchParams.set(k, v);
  const back = new URL(await completeAuthorization(server.services, await pendingIdFor(authorize), userId, ["meta:whoami", "read:wallets"]));
  const issued = await form(`${server.url}/oauth/token`, {
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: server.mcpUrl,
  });
  expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
  return { accessToken: issued.body.access_token, refreshToken: issued.body.refresh_token, clientId };
}

/** Refreshes an OAuth grant: 200 while it lives, 400 invalid_grant once it is gone. */
export const refresh = (server: TestServer, oauth: Person["oauth"]) =>
  form(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: oauth.refreshToken, client_id: oauth.clientId });

export async function makePerson(server: TestServer, email = `leave-${randomBytes(4).toString("hex")}@example.test`): Promise<Person> {
  const user = await createUser(server.db, { email, password: PASSWORD, currency: "EUR", timezone: "Europe/Berlin" });
  const { token } = await createToken(server.db, user.id, { name: "all", scopes: [...KNOWN_SCOPES], expiresInDays: 3650 }, server.config.tokenPepper);
  const caller = await authenticateBearer(server.db, `Bearer ${token}`, server.config.tokenPepper);
  await seedDemoPerson(server.services.dispatch, caller);
  const key = () => randomUUID();
  await server.call("save_rule", { operator: "contains", value: "blue bottle", set_category: "Dining", add_tags: ["coffee"], idempotency_key: key() }, token);
  await server.call("set_exchange_rate", { base: "USD", quote: "EUR", rate: "0.9215", date: "2026-11-20", idempotency_key: key() }, token);
  await server.call("set_recurring_series", { series: "expense:EUR:netflix", decision: "confirm", idempotency_key: key() }, token);
  const { wallet } = await server.call("create_wallet", { name: "Imported", type: "checking", currency: "USD", idempotency_key: key() }, token);
  await server.call(
    "import_transactions",
    {
      wallet_id: wallet.id,
      statement: "Date,Description,Amount\n11/23/2026,TRADER JOE'S #552,-42.75\n11/24/2026,BLUE BOTTLE COFFEE,-4.50\n",
      idempotency_key: key(),
    },
    token,
  );
  // What confirmation through the client keeps (test/protocol/elicitation.test.ts makes them through real
  // clients): the client's declared elicitation, and a requestState answered a minute ago.
  await rememberCapabilities(server.db, caller.tokenId, newSessionId(), { elicitation: {} }, new Date());
  await server
    .db("request_states_used")
    .insert({ nonce: randomBytes(32).toString("base64url"), user_id: user.id, expires_at: new Date(Date.now() + 240_000).toISOString() });
  // A preview id a commit used (src/writes/preview.ts; test/writes/preview-binding.test.ts makes them through the tools).
  await server
    .db("previews_used")
    .insert({ mac: randomBytes(16).toString("base64url"), user_id: user.id, expires_at: new Date(Date.now() + 240_000).toISOString() });
  await server.call(
    "create_transaction",
    {
      wallet_id: wallet.id,
      direction: "expense",
      amount: "64.80",
      payee: "REWE",
      parts: [
        { amount: "44.80", category: "Groceries" },
        { amount: "20.00", category: "Gifts" },
      ],
      idempotency_key: key(),
    },
    token,
  );
  // A bank connection syncing into the imported wallet (test/banks holds the real SimpleFIN exchange).
  const connectionId = `bnk_${randomBytes(8).toString("hex")}`;
  await server.db("bank_connections").insert({
    id: connectionId,
    user_id: user.id,
    bridge: "bridge.example",
    access_sealed: "v1.000000000000.sealed",
    sync_from: "2026-09-01",
    next_sync_at: new Date().toISOString(),
    created_at: new Date().toISOString(),
  });
  await server
    .db("bank_accounts")
    .insert({ connection_id: connectionId, user_id: user.id, account_id: "acc", name: "Checking", currency: "USD", wallet_id: wallet.id });
  const calendarSecret = await createCalendarFeed(server.db, user.id, server.config.tokenPepper, new Date());
  const oauth = await connectClient(server, user.id);
  const web = new WebClient(server.url);
  expect((await web.signIn(email, PASSWORD)).status).to.equal(303);
  return { id: user.id, email, token, oauth, calendarSecret, web };
}
