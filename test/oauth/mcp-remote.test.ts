/**
 * mcp-remote (the stdio bridge Claude Desktop uses) against a running server (docs/oauth.md): it discovers the
 * server from the 401, registers by DCR, prints the authorization URL, and waits on its loopback
 * callback port. The consent step is driven twice: over HTTP (GET /oauth/authorize, completeAuthorization
 * as the consent page calls it, then the browser's redirect to mcp-remote's callback), and in headless
 * Chromium on the real consent page (sign in, Allow). Then tools are listed and called over stdio.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { tools } from "../../generated/registry.js";
import { listTokens } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { consent } from "./helpers.js";

const MCP_REMOTE = join(process.cwd(), "node_modules", "mcp-remote", "dist", "proxy.js");

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Newline-delimited JSON-RPC over the child's stdio. */
function stdioClient(child: ChildProcessWithoutNullStreams) {
  let buffer = "";
  const waiting = new Map<number, (msg: any) => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      const msg = JSON.parse(line);
      if (msg.id !== undefined) waiting.get(msg.id)?.(msg);
    }
  });
  return {
    request(id: number, method: string, params: unknown = {}): Promise<any> {
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    },
    notify(method: string) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
    },
  };
}

describe(`mcp-remote through OAuth (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  let configDir: string;
  let child: ChildProcessWithoutNullStreams | undefined;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    configDir = mkdtempSync(join(tmpdir(), "fmcp-mcp-remote-"));
  });
  after(async () => {
    child?.kill();
    await server.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  /** Starts mcp-remote and returns the authorization URL it prints. */
  async function startBridge(dir: string, mcpUrl = server.mcpUrl): Promise<{ url: URL; stderr: () => string }> {
    const port = await freePort();
    // BROWSER=true: xdg-open "opens" the URL with /bin/true, so no real browser starts; the URL is read from stderr.
    child = spawn(process.execPath, [MCP_REMOTE, mcpUrl, String(port), "--allow-http", "--transport", "http-only"], {
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: dir, BROWSER: "true", DISPLAY: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no authorization URL from mcp-remote:\n${stderr}`)), 30_000);
      child!.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        const m = /Please authorize this client by visiting:\s*\n(\S+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child!.on("exit", (code) => reject(new Error(`mcp-remote exited (${code}):\n${stderr}`)));
    });
    return { url: new URL(url), stderr: () => stderr };
  }

  /** initialize, tools/list and whoami over mcp-remote's stdio; the names tools/list gave. */
  async function useTools(userId: string): Promise<string[]> {
    const rpc = stdioClient(child!);
    const init = await rpc.request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stdio-test", version: "1.0.0" } });
    expect(init.result?.serverInfo, JSON.stringify(init)).to.be.an("object");
    rpc.notify("notifications/initialized");
    const list = await rpc.request(2, "tools/list");
    const names = list.result.tools.map((t: { name: string }) => t.name) as string[];
    expect(names).to.include.members(["whoami", "list_wallets"]);
    const who = await rpc.request(3, "tools/call", { name: "whoami", arguments: {} });
    expect(who.result.structuredContent.user_id).to.equal(userId);
    return names;
  }

  /** The browser's redirect to mcp-remote's callback server (it may still be starting). */
  async function followToBridge(back: URL, stderr: string): Promise<void> {
    let callback: Response | undefined;
    for (let i = 0; i < 50 && !callback; i++) {
      callback = await fetch(back).catch(async () => {
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    }
    expect(callback?.status, `${back}\n${stderr}`).to.equal(200);
  }

  it("completes the browser step on the real consent page in headless Chromium, then calls tools over stdio", async function () {
    const browser = await launchBrowser(this);
    const dir = mkdtempSync(join(tmpdir(), "fmcp-mcp-remote-browser-"));
    try {
      const email = `remote-${Date.now()}@example.test`;
      const person = await createUser(server.db, { email, password: "correct horse battery staple" });
      const { url, stderr } = await startBridge(dir);
      const page = await browser.newPage();
      await page.goto(url.toString());
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill("correct horse battery staple");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: /^Connect / }).waitFor();
      await page.getByRole("button", { name: "Allow" }).click();
      // The browser lands on mcp-remote's own callback page.
      await page
        .waitForURL((u) => u.hostname === "localhost" || u.hostname === "127.0.0.1", { timeout: 20_000 })
        .catch(() => {
          throw new Error(`the consent page did not send the browser back to mcp-remote:\n${stderr()}`);
        });
      await useTools(person.id);
    } finally {
      child?.kill();
      child = undefined;
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("authorizes, then lists and calls tools over stdio", async () => {
    const { url: auth, stderr: bridgeErr } = await startBridge(configDir);
    const stderr = bridgeErr();
    expect(auth.origin).to.equal(server.url);
    expect(auth.searchParams.get("resource")).to.equal(server.mcpUrl);
    expect(auth.searchParams.get("code_challenge_method")).to.equal("S256");

    const back = await consent(server, auth, user.id, ["meta:whoami", "read:wallets"]);
    expect(back.hostname).to.be.oneOf(["localhost", "127.0.0.1"]);
    expect(back.searchParams.get("iss")).to.equal(server.url);
    await followToBridge(back, stderr);

    await useTools(user.id);
    expect((await listTokens(server.db, user.id)).some((t) => t.grant_id && t.name.endsWith("(OAuth)"))).to.equal(true);
  });

  it("connects to the read-only endpoint: its own resource, read tools only (docs/decisions.md#read-only-endpoint)", async () => {
    child?.kill();
    const dir = mkdtempSync(join(tmpdir(), "fmcp-mcp-remote-read-"));
    try {
      const readUrl = `${server.mcpUrl}/read`;
      const { url: auth, stderr } = await startBridge(dir, readUrl);
      expect(auth.searchParams.get("resource")).to.equal(readUrl);
      await followToBridge(await consent(server, auth, user.id, ["meta:whoami", "read:wallets"]), stderr());
      const names = await useTools(user.id);
      const granted = new Set(["meta:whoami", "read:wallets"]);
      expect(names).to.deep.equal(tools.filter((t) => t.kind === "read" && granted.has(t.scope)).map((t) => t.name));
    } finally {
      child?.kill();
      child = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
