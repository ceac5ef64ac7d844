/**
 * mcp-remote (the stdio bridge Claude Desktop uses) against a running server (issue 16): it discovers the
 * server from the 401, registers by DCR, prints the authorization URL, and waits on its loopback
 * callback port. The consent step is driven over HTTP here (GET /oauth/authorize, completeAuthorization
 * as the consent page calls it, then the browser's redirect to mcp-remote's callback); the browser
 * version of this step belongs to the consent page's tests. Then tools are listed and called over stdio.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { listTokens } from "../../src/auth/tokens.js";
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

  it("authorizes, then lists and calls tools over stdio", async () => {
    const port = await freePort();
    // BROWSER=true: xdg-open "opens" the URL with /bin/true, so no real browser starts; the URL is read from stderr.
    child = spawn(process.execPath, [MCP_REMOTE, server.mcpUrl, String(port), "--allow-http", "--transport", "http-only"], {
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "true", DISPLAY: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    const authorizationUrl = await new Promise<string>((resolve, reject) => {
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
    const auth = new URL(authorizationUrl);
    expect(auth.origin).to.equal(server.url);
    expect(auth.searchParams.get("resource")).to.equal(server.mcpUrl);
    expect(auth.searchParams.get("code_challenge_method")).to.equal("S256");

    const back = await consent(server, auth, user.id, ["meta:whoami", "read:wallets"]);
    expect(back.hostname).to.be.oneOf(["localhost", "127.0.0.1"]);
    expect(back.searchParams.get("iss")).to.equal(server.url);
    // The browser follows the redirect to mcp-remote's callback server (it may still be starting).
    let callback: Response | undefined;
    for (let i = 0; i < 50 && !callback; i++) {
      callback = await fetch(back).catch(async () => {
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    }
    expect(callback?.status, `${back}\n${stderr}`).to.equal(200);

    const rpc = stdioClient(child);
    const init = await rpc.request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stdio-test", version: "1.0.0" } });
    expect(init.result?.serverInfo, JSON.stringify(init)).to.be.an("object");
    rpc.notify("notifications/initialized");
    const list = await rpc.request(2, "tools/list");
    expect(list.result.tools.map((t: { name: string }) => t.name)).to.include.members(["whoami", "list_wallets"]);
    const who = await rpc.request(3, "tools/call", { name: "whoami", arguments: {} });
    expect(who.result.structuredContent.user_id).to.equal(user.id);
    expect((await listTokens(server.db, user.id)).some((t) => t.grant_id && t.name.endsWith("(OAuth)"))).to.equal(true);
  });
});
