/**
 * npm run screenshots: the account page, its deletion page and the consent page, as a person sees them, written to
 * docs/screenshots/ (desktop and phone widths). A throwaway server with a demo person, a token, a
 * connected client and a pending authorization; Debian's chromium through playwright-core.
 */
import { createHash, randomBytes } from "node:crypto";
import { chromium } from "playwright-core";
import { createUser } from "../src/auth/users.js";
import { chromiumPath } from "../test/helpers/browser.js";
import { startTestServer } from "../test/helpers/server.js";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;
const EMAIL = "sam@example.com";
const PASSWORD = "correct horse battery staple";

const path = chromiumPath();
if (!path) throw new Error("no chromium: apt-get install chromium");
const server = await startTestServer({}, { now: () => new Date() });
const browser = await chromium.launch({ executablePath: path, args: ["--no-sandbox", "--disable-gpu"] });
try {
  const user = await createUser(server.db, { email: EMAIL, password: PASSWORD, timezone: "Europe/Berlin", currency: "EUR" });
  const token = (await import("../src/auth/tokens.js")).createToken;
  const { token: secret } = await token(
    server.db,
    user.id,
    {
      name: "Claude Code on my laptop",
      scopes: ["meta:whoami", "read:transactions", "read:wallets", "write:transactions", "write:wallets"],
      expiresInDays: 30,
    },
    server.config.tokenPepper,
  );
  const wallet = (
    await server.call(
      "create_wallet",
      { name: "Everyday", type: "checking", currency: "EUR", opening_balance: "1200.00", idempotency_key: crypto.randomUUID() },
      secret,
    )
  ).wallet;
  await server.call(
    "create_transaction",
    { wallet_id: wallet.id, amount: "14.20", direction: "expense", payee: "Corner cafe", category: "Dining", idempotency_key: crypto.randomUUID() },
    secret,
  );

  const redirectUri = "http://127.0.0.1:33418/callback";
  const reg = await (
    await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
    })
  ).json();
  const authorize = new URL(`${server.url}/oauth/authorize`);
  const verifier = randomBytes(32).toString("base64url");
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: reg.client_id,
    redirect_uri: redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "x",
    scope: "meta:whoami read:transactions write:transactions read:wallets read:budgets read:knowledge",
  }))
    authorize.searchParams.set(k, v);

  for (const [name, viewport] of [
    ["desktop", { width: 1100, height: 1500 }],
    ["phone", { width: 390, height: 1700 }],
  ] as const) {
    const page = await (await browser.newContext({ viewport, colorScheme: "light" })).newPage();
    await page.goto(authorize.toString());
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: /Connect Claude/ }).waitFor();
    await page.screenshot({ path: `${OUT}consent-${name}.png`, fullPage: true });
    await page.goto(`${server.url}/account`);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await page.screenshot({ path: `${OUT}account-${name}.png`, fullPage: true });
    await page.getByRole("link", { name: "Delete my account" }).click();
    await page.getByRole("heading", { name: "Delete your account" }).waitFor();
    await page.screenshot({ path: `${OUT}delete-account-${name}.png`, fullPage: true });
  }
  console.log(`wrote ${OUT}{consent,account,delete-account}-{desktop,phone}.png`);
} finally {
  await browser.close();
  await server.close();
}
