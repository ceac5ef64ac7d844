/**
 * GET / introduces the server: a page for a browser (what this is, the MCP URL with one line per client as
 * README's table has them, the account page, health) with the other pages' security headers; a small JSON
 * index for a JSON client whose every address answers; HEAD / 200; a browser that opens the MCP URL is
 * pointed here. The page is then read and followed in headless Chromium.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { CLIENT_LINES } from "../../src/web/home-page.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** The rows of the README table under "## Connect your chatbot": [client, how]. */
function readmeClientRows(): string[][] {
  const text = readFileSync(README, "utf8");
  const section = text.slice(text.indexOf("## Connect your chatbot"));
  const table = section.slice(section.indexOf("| client | how |"));
  const lines = table.split("\n");
  return lines
    .slice(
      2,
      lines.findIndex((line) => !line.startsWith("|")),
    )
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );
}

describe(`GET / : the server introduces itself (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it("shows a browser what this is, the MCP URL, a line per client, the account page and health, with the pages' security headers", async () => {
    const res = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.match(/^text\/html/);
    const html = await res.text();
    expect(html).to.include(`${server.url}/api/v1/mcp`);
    expect(html).to.include('href="/account"').and.include('href="/healthz"').and.include('href="/api/v1/openrpc.json"');
    for (const line of CLIENT_LINES) expect(html).to.include(line.client.replaceAll("`", "").split(" through")[0]!);
    // The same headers as the account page (the nonce aside).
    const account = await fetch(`${server.url}/account`);
    for (const header of ["x-frame-options", "cache-control", "referrer-policy", "x-content-type-options"])
      expect(res.headers.get(header), header).to.equal(account.headers.get(header));
    const csp = (r: Response) => r.headers.get("content-security-policy")!.replace(/'nonce-[^']+'/, "'nonce'");
    expect(csp(res)).to.equal(csp(account));
    expect(csp(res)).to.include("frame-ancestors 'none'");
  });

  it("gives a JSON client a small index whose every address answers", async () => {
    const res = await fetch(`${server.url}/`, { headers: { accept: "application/json" } });
    expect(res.status).to.equal(200);
    expect(res.headers.get("vary")).to.include("Accept");
    const index = (await res.json()) as Record<string, any>;
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8"));
    expect(index).to.include({
      name: "finance-mcp",
      version: pkg.version,
      mcp_endpoint: `${server.url}/api/v1/mcp`,
      mcp_read_endpoint: `${server.url}/api/v1/mcp/read`,
      openrpc: `${server.url}/api/v1/openrpc.json`,
    });
    expect(JSON.stringify(index).length).to.be.lessThan(1200);
    for (const url of [
      index.openrpc,
      index.oauth.protected_resource_metadata,
      index.oauth.authorization_server_metadata,
      index.health.alive,
      index.health.ready,
    ]) {
      expect((await fetch(url)).status, url).to.equal(200);
    }
    const prm = (await (await fetch(index.oauth.protected_resource_metadata)).json()) as { resource: string };
    expect(prm.resource).to.equal(index.mcp_endpoint);
  });

  it("answers HEAD / with 200 and no body", async () => {
    const res = await fetch(`${server.url}/`, { method: "HEAD" });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal("");
  });

  it("lists exactly the clients of README's 'Connect your chatbot' table", () => {
    expect(CLIENT_LINES.map((c) => [c.client, c.how])).to.deep.equal(readmeClientRows());
  });

  it("refuses a Host that is not allowed, as the other pages do", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/`, { headers: { host: "evil.example" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).to.equal(403);
  });

  it("a browser that opens the MCP URL gets the protocol's 405 as a page pointing to /; MCP clients keep the JSON-RPC 405", async () => {
    const page = await fetch(`${server.url}/api/v1/mcp`, { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).to.equal(405);
    expect(page.headers.get("allow")).to.equal("POST");
    expect(page.headers.get("x-frame-options")).to.equal("DENY");
    expect(await page.text()).to.include('href="/"');
    const sse = await fetch(`${server.url}/api/v1/mcp`, { headers: { accept: "text/event-stream" } });
    expect(sse.status).to.equal(405);
    expect(((await sse.json()) as { error: { data: { code: string } } }).error.data.code).to.equal("method_not_allowed");
  });

  describe("in a browser", () => {
    let browser: Browser;
    before(async function () {
      browser = await launchBrowser(this);
    });
    after(async () => browser?.close());

    it("reads as a page (no script or style blocked), shows the MCP URL and a row per client, and leads to sign-in", async () => {
      const page = await (await browser.newContext()).newPage();
      const problems: string[] = [];
      page.on("console", (m) => void (m.type() === "error" && problems.push(m.text())));
      page.on("pageerror", (e) => problems.push(e.message));
      await page.goto(`${server.url}/`);
      await page.getByRole("heading", { name: "An MCP server for your finances" }).waitFor();
      expect((await page.locator("#mcp-url").textContent())!.trim()).to.equal(`${server.url}/api/v1/mcp`);
      expect(await page.locator("tbody tr").count()).to.equal(CLIENT_LINES.length);
      expect(await page.getByRole("row", { name: /Claude Code/ }).textContent()).to.include(`claude mcp add --transport http finance ${server.url}/api/v1/mcp`);
      await page.getByRole("link", { name: /Sign in to manage your tokens/ }).click();
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      expect(new URL(page.url()).pathname).to.equal("/account");
      expect(problems).to.deep.equal([]);
    });
  });
});
