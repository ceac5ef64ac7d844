/**
 * A stranger's fresh server, reached from a browser alone (issue 52 item 6): bare `finance-mcp` (what
 * `npm start` runs) over a new database prints a one-time setup code to its log; `/` offers to create the
 * owner account with it (a wrong code creates nothing); the person, in headless Chromium, creates the
 * account, is signed in, and a chatbot (the MCP SDK client) connects through OAuth, the consent given in
 * the same browser, and lists and calls tools. Then the offer is gone: `/` is the usual home page and
 * POST /setup answers 404. No CLI command is run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { seriousViolations } from "../helpers/axe.js";
import { launchBrowser } from "../helpers/browser.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { MemoryProvider } from "../oauth/helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Started {
  child: ChildProcess;
  base: string;
  setupCode: string;
  log: () => string;
}

/** Starts bare `finance-mcp` and resolves once it has logged where it listens and its setup code. */
function start(databaseUrl: string): Promise<Started> {
  const child = spawn(process.execPath, [join(ROOT, "bin/finance-mcp.js")], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: "0", DATABASE_URL: databaseUrl },
    detached: true,
  });
  child.stdout!.resume();
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no first_run line within 120 s: ${err}`)), 120_000);
    child.once("exit", (code) => reject(new Error(`finance-mcp exited with ${code}: ${err}`)));
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const lines = err
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => {
          try {
            return JSON.parse(l) as Record<string, string>;
          } catch {
            return {};
          }
        });
      const listening = lines.find((l) => l.event === "listening");
      const first = lines.find((l) => l.event === "first_run");
      if (listening && first) {
        clearTimeout(timer);
        resolve({ child, base: listening.home!.replace(/\/$/, ""), setupCode: first.setup_code!, log: () => err });
      }
    });
  });
}

describe(`first run: from a fresh server to a connected chatbot, in a browser alone (${engine})`, function () {
  this.timeout(240_000);
  let dir: string;
  let database: TestDatabase | undefined;
  let server: Started | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-first-run-"));
    database = engine === "postgres" ? await createTestDatabase() : undefined;
    server = await start(database?.url ?? `sqlite:${join(dir, "finance.sqlite")}`);
  });
  after(async () => {
    if (server) {
      try {
        process.kill(-server.child.pid!, "SIGTERM");
      } catch {
        /* gone */
      }
      await new Promise((resolve) => server!.child.once("exit", resolve));
    }
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the log names the setup code; / offers the owner account; a wrong code creates nothing", async function () {
    expect(server!.setupCode).to.match(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    const browser = await launchBrowser(this);
    try {
      // bypassCSP: axe-core is injected as a script, which the page's CSP would refuse.
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      await page.goto(`${server!.base}/`);
      await page.getByRole("heading", { name: "Set up your finance server" }).waitFor();
      expect(await seriousViolations(page), "the first-run page (axe-core)").to.deep.equal([]);
      await page.getByLabel("Setup code").fill("AAAA-BBBB-CCCC-DDDD");
      await page.getByLabel("Your email").fill("owner@example.test");
      await page.getByLabel(/A password/).fill("a long enough owner password");
      await page.getByRole("button", { name: "Create the owner account" }).click();
      await page.getByRole("alert").filter({ hasText: "not the setup code" }).waitFor();
      // Still offered: nothing was created.
      await page.goto(`${server!.base}/`);
      await page.getByRole("heading", { name: "Set up your finance server" }).waitFor();
    } finally {
      await browser.close();
    }
  });

  it("setup code, owner account, consent, tools: all in the browser; then the offer is gone", async function () {
    const browser = await launchBrowser(this);
    try {
      const page = await browser.newPage();
      await page.goto(`${server!.base}/`);
      await page.getByLabel("Setup code").fill(server!.setupCode.toLowerCase());
      await page.getByLabel("Your email").fill("owner@example.test");
      await page.getByLabel(/A password/).fill("a long enough owner password");
      await page.getByLabel(/Your home currency/).fill("EUR");
      await page.getByRole("button", { name: "Create the owner account" }).click();
      // Signed in, on the home page that says how to connect a chatbot.
      await page.getByRole("heading", { name: "Connect your chatbot" }).waitFor();
      const mcpUrl = (await page.locator("#mcp-url").textContent())!.trim();
      expect(mcpUrl).to.equal(`${server!.base}/api/v1/mcp`);

      // The chatbot: the MCP SDK client given only the MCP URL; its sign-in page opens in this browser.
      const provider = new MemoryProvider({ name: "First-run chatbot" });
      await new Client({ name: "first-run", version: "1.0.0" })
        .connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }))
        .catch((err) => {
          if (!(err instanceof UnauthorizedError)) throw err;
        });
      const redirected = page.waitForRequest((r) => r.url().startsWith(provider.redirectUrl));
      await page.goto(provider.authorizationUrl!.toString());
      await page.getByRole("heading", { name: "Connect First-run chatbot?" }).waitFor();
      await page.getByRole("button", { name: "Allow" }).click();
      const back = new URL((await redirected).url());
      await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }).finishAuth(back.searchParams.get("code")!);
      const client = new Client({ name: "first-run", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
      try {
        expect((await client.listTools()).tools.length).to.be.greaterThan(0);
        const who = (await client.callTool({ name: "whoami", arguments: {} })).structuredContent as { token_name: string; default_currency: string };
        expect(who).to.include({ token_name: "First-run chatbot (OAuth)", default_currency: "EUR" });
      } finally {
        await client.close();
      }

      // The offer is gone, for this browser and any other.
      const other = await browser.newPage();
      await other.goto(`${server!.base}/`);
      await other.getByRole("heading", { name: "Connect your chatbot" }).waitFor();
      const again = await fetch(`${server!.base}/setup`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "setup_code=x",
      });
      expect(again.status).to.be.oneOf([403, 404]);
      expect(server!.log()).to.include('"owner_created"');
    } finally {
      await browser.close();
    }
  });
});
