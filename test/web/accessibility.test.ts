/**
 * axe-core (Deque's accessibility engine, the check directory reviewers run) over every page in headless
 * Chromium, in the light and the dark theme: the home page, the privacy page, sign-in, the account page
 * signed in, the import and leave pages, the OAuth consent page. Each must have no serious or critical
 * violation of WCAG 2.x A and AA, contrast included. (The MCP Apps get the same check in
 * test/apps/apps.test.ts.) axe is injected into each page with the page's CSP bypassed: the pages
 * allow no script but their own.
 */
import { createHash, randomBytes } from "node:crypto";
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createUser } from "../../src/auth/users.js";
import { seriousViolations } from "../helpers/axe.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct horse battery staple";
const THEMES = ["light", "dark"] as const;

describe(`accessibility of every page, light and dark (axe-core, ${engine})`, function () {
  this.timeout(180_000);
  let browser: Browser;
  let server: TestServer;
  let email: string;

  before(async function () {
    browser = await launchBrowser(this);
    server = await startTestServer();
    email = `a11y-${randomBytes(4).toString("hex")}@example.test`;
    await createUser(server.db, { email, password: PASSWORD });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function context(theme: (typeof THEMES)[number]): Promise<BrowserContext> {
    return browser.newContext({ colorScheme: theme, bypassCSP: true });
  }

  async function signIn(page: Page) {
    await page.goto(`${server.url}/account`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
  }

  async function consentUrl(): Promise<string> {
    const redirectUri = "http://127.0.0.1:9/callback";
    const reg = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Accessibility Bot", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const u = new URL(`${server.url}/oauth/authorize`);
    const params = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
      code_challenge_method: "S256",
      state: "s1",
      scope: "read:transactions write:transactions",
      resource: `${server.url}/api/v1/mcp`,
    };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.toString();
  }

  for (const theme of THEMES) {
    it(`the pages anyone can open have no serious or critical violation (${theme})`, async () => {
      const page = await (await context(theme)).newPage();
      for (const path of ["/", "/privacy", "/terms", "/support", "/account"]) {
        await page.goto(`${server.url}${path}`);
        expect(await seriousViolations(page), `${path} (${theme})`).to.deep.equal([]);
      }
    });

    it(`the signed-in pages and the consent page have no serious or critical violation (${theme})`, async () => {
      const page = await (await context(theme)).newPage();
      await signIn(page);
      expect(await seriousViolations(page), `/account signed in (${theme})`).to.deep.equal([]);
      for (const path of ["/account/import", "/account/delete"]) {
        await page.goto(`${server.url}${path}`);
        expect(await seriousViolations(page), `${path} (${theme})`).to.deep.equal([]);
      }
      await page.goto(await consentUrl());
      await page
        .getByRole("button", { name: /allow|approve/i })
        .first()
        .waitFor();
      expect(await seriousViolations(page), `consent (${theme})`).to.deep.equal([]);
    });
  }

  it("the check can fail: a grey-on-white paragraph is a serious contrast violation", async () => {
    const page = await (await context("light")).newPage();
    await page.goto(`${server.url}/privacy`);
    await page.evaluate(() => {
      const p = document.createElement("p");
      p.textContent = "Barely readable text";
      p.setAttribute("style", "color:#cccccc;background:#ffffff");
      document.querySelector("main")!.append(p);
    });
    expect((await seriousViolations(page)).join("\n")).to.include("color-contrast");
  });
});
