/**
 * The account page and the consent page in a real browser (headless Chromium): sign in (a wrong password
 * first), create a token with chosen scopes and use it, revoke it; an OAuth client registered by DCR whose
 * authorization the person denies, then approves with fewer scopes than asked, the code exchanged and the
 * token used; a form posted without or with a wrong CSRF token refused; the page framed by another origin
 * blocked; sign out everywhere ending another browser's session and a copied cookie; sign-in with the
 * keyboard alone.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { createUser } from "../../src/auth/users.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct horse battery staple";

describe(`web pages in a browser (${engine})`, function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;
  let email: string;
  let userId: string;

  before(async function () {
    browser = await launchBrowser(this);
    server = await startTestServer();
    email = `web-${randomBytes(4).toString("hex")}@example.test`;
    userId = (await createUser(server.db, { email, password: PASSWORD })).id;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signIn(page: Page, password = PASSWORD) {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  it("signs in (not with a wrong password), creates a token with the chosen scopes that works, and revokes it", async () => {
    const page = await (await browser.newContext()).newPage();
    const first = await page.goto(`${server.url}/account`);
    expect(first!.headers()["x-frame-options"]).to.equal("DENY");
    expect(first!.headers()["content-security-policy"]).to.contain("frame-ancestors 'none'");
    await signIn(page, "wrong password!!");
    await expect(await page.getByRole("alert").textContent()).to.contain("Wrong email or password");
    await signIn(page);
    await page.getByRole("heading", { name: "Your account" }).waitFor();

    await page.getByLabel("Name").fill("Browser token");
    // Read boxes are ticked, change boxes are not; keep wallets' read, untick the rest.
    for (const scope of ["read:transactions", "read:budgets", "read:goals", "read:bills", "read:knowledge"])
      await page.locator(`input[value="${scope}"]`).uncheck();
    await page.getByRole("button", { name: "Create token" }).click();
    const token = (await page.locator("#new-token").textContent())!.trim();
    expect(token).to.match(/^fmcp_/);
    expect(await page.locator("pre").allTextContents()).to.satisfy((texts: string[]) => texts.some((t) => t.includes("claude mcp add")));

    const listed = await server.call("list_wallets", {}, token);
    expect(listed.wallets).to.deep.equal([]);
    const refused = await server.rpc({ jsonrpc: "2.0", id: 1, method: "list_transactions", params: {} }, token);
    expect(refused.body.error.data.code).to.equal("insufficient_scope");

    await page.goto(`${server.url}/account`);
    await page.getByRole("button", { name: "Revoke Browser token" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    const after = await server.rpc({ jsonrpc: "2.0", id: 2, method: "whoami", params: {} }, token);
    expect(after.status).to.equal(401);
  });

  it("refuses a form without or with a wrong CSRF token, and a sign-in form posted from another site", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/account`);
    await signIn(page);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    // Same browser, same cookies, but no or a forged csrf field.
    for (const csrf of [undefined, "forged"]) {
      const res = await page.request.post(`${server.url}/account/tokens`, {
        form: { name: "csrf", scope: "meta:whoami", expires_in_days: "1", ...(csrf ? { csrf } : {}) },
      });
      expect(res.status(), String(csrf)).to.equal(403);
    }
    const fromElsewhere = await page.request.post(`${server.url}/account/sign-in`, {
      form: { email, password: PASSWORD },
      headers: { origin: "http://evil.example" },
    });
    expect(fromElsewhere.status()).to.equal(403);
    await context.close();
  });

  it("cannot be framed by another origin", async () => {
    const framer: Server = createServer((_req, res) => res.end(`<!doctype html><iframe id="f" src="${server.url}/account"></iframe>`));
    await new Promise<void>((resolve) => framer.listen(0, "127.0.0.1", resolve));
    try {
      const page = await (await browser.newContext()).newPage();
      const port = (framer.address() as { port: number }).port;
      await page.goto(`http://localhost:${port}/`);
      await page.waitForTimeout(500);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      // The frame exists but never shows the page: Chromium puts an error page in its place.
      const shown = frame ? await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "") : "";
      expect(shown).to.not.contain("Sign in with the email");
    } finally {
      framer.close();
    }
  });

  it("signs out everywhere: the other browser's session and a copied cookie end too", async () => {
    const laptop = await browser.newContext();
    const phone = await browser.newContext();
    try {
      const here = await laptop.newPage();
      const there = await phone.newPage();
      for (const page of [here, there]) {
        await page.goto(`${server.url}/account`);
        await signIn(page);
        await page.getByRole("heading", { name: "Your account" }).waitFor();
      }
      // A third browser holding a copy of the laptop's cookie (stolen, or synced elsewhere).
      const copied = (await laptop.cookies()).find((c) => c.name === "fmcp_session")!;
      const thief = await browser.newContext();
      await thief.addCookies([{ ...copied }]);
      const stolen = await thief.newPage();
      await stolen.goto(`${server.url}/account`);
      await stolen.getByRole("heading", { name: "Your account" }).waitFor();

      await here.getByRole("button", { name: "Sign out everywhere" }).click();
      await here.getByRole("heading", { name: "Sign in" }).waitFor();
      for (const page of [there, stolen]) {
        await page.reload();
        await page.getByRole("heading", { name: "Sign in" }).waitFor();
      }
      await thief.close();
    } finally {
      await laptop.close();
      await phone.close();
    }
  });

  it("signs in with the keyboard alone", async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/account`, { waitUntil: "load" });
    // The email field has focus (autofocus); Tab reaches it otherwise, as a keyboard user would.
    for (let i = 0; i < 5 && (await page.evaluate(() => document.activeElement?.id)) !== "email"; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal("email");
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Your account" }).waitFor();
  });

  describe("the OAuth consent page", () => {
    let callback: Server;
    let redirectUri: string;
    let clientId: string;
    const received: URL[] = [];

    before(async () => {
      callback = createServer((req, res) => {
        received.push(new URL(req.url!, redirectUri));
        res.end("done");
      });
      await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
      redirectUri = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`;
      const reg = await fetch(`${server.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Browser Test Bot", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
      });
      expect(reg.status).to.equal(201);
      clientId = (await reg.json()).client_id;
    });
    after(() => callback?.close());

    function authorizeUrl(verifier: string, scope: string) {
      const u = new URL(`${server.url}/oauth/authorize`);
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      for (const [k, v] of Object.entries({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s1",
        scope,
        resource: `${server.url}/api/v1/mcp`,
      })) {
        u.searchParams.set(k, v);
      }
      return u;
    }

    it("after sign-in shows the client and its scopes by area; Deny returns access_denied", async () => {
      const page = await (await browser.newContext()).newPage();
      const verifier = randomBytes(32).toString("base64url");
      await page.goto(authorizeUrl(verifier, "read:wallets write:wallets").toString());
      await signIn(page);
      await page.getByRole("heading", { name: "Connect Browser Test Bot?" }).waitFor();
      expect(await page.locator('input[value="read:wallets"]').isChecked()).to.equal(true);
      expect(await page.locator('input[value="write:wallets"]').isChecked()).to.equal(false);
      expect(await page.locator('input[value="read:transactions"]').count()).to.equal(0);
      received.length = 0;
      await page.getByRole("button", { name: "Deny" }).click();
      await page.waitForURL(/\/callback/);
      expect(received[0]!.searchParams.get("error")).to.equal("access_denied");
      expect(received[0]!.searchParams.get("state")).to.equal("s1");
    });

    it("Allow with the scopes ticked gives a code that exchanges for a working token", async () => {
      const page = await (await browser.newContext()).newPage();
      const verifier = randomBytes(32).toString("base64url");
      await page.goto(authorizeUrl(verifier, "read:wallets write:wallets meta:whoami").toString());
      await signIn(page);
      await page.getByRole("heading", { name: "Connect Browser Test Bot?" }).waitFor();
      received.length = 0;
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL(/\/callback/);
      const code = received[0]!.searchParams.get("code")!;
      expect(received[0]!.searchParams.get("iss")).to.equal(server.url);
      const tokenRes = await fetch(`${server.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          client_id: clientId,
          code_verifier: verifier,
          resource: `${server.url}/api/v1/mcp`,
        }),
      });
      expect(tokenRes.status).to.equal(200);
      const granted = await tokenRes.json();
      expect(granted.scope.split(" ").sort()).to.deep.equal(["meta:whoami", "read:wallets"]);
      const me = await server.call("whoami", {}, granted.access_token);
      expect(me.user_id).to.equal(userId);
      // The account page lists the connected client.
      await page.goto(`${server.url}/account`);
      await page.getByRole("button", { name: "Disconnect Browser Test Bot" }).waitFor();
    });
  });
});
