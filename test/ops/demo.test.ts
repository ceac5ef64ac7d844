/**
 * finance-mcp demo: starts, prints ready-to-paste configuration for five clients, and the printed
 * configuration works: an official MCP SDK client connects with the printed URL and header and calls
 * tools over the demo person's data (several months, two currencies, budgets, a goal, bills). The demo
 * always uses a fresh SQLite file, whatever the engine of the run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { engine } from "../helpers/database.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));

/** The JSON block printed after a "--- <client>:" heading. */
function block(out: string, client: string): any {
  const start = out.indexOf(`--- ${client}:`);
  expect(start, `a ${client} section`).to.be.greaterThan(-1);
  const text = out.slice(out.indexOf("\n", start) + 1);
  const end = text.indexOf("\n}\n");
  return JSON.parse(text.slice(0, end + 2));
}

describe(`finance-mcp demo (${engine})`, function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-demo-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints working configurations: an SDK client with the printed URL and token reads the demo person's data", async () => {
    const child = spawn(process.execPath, [BIN, "demo", "--db", join(dir, "demo.sqlite")], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", DATABASE_URL: "postgres://must-not-be-used@127.0.0.1:1/none" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the demo was not ready within 150 s: ${err}`)), 150_000);
        const check = setInterval(() => {
          if (out.includes("Ready.")) {
            clearTimeout(timer);
            clearInterval(check);
            resolve();
          }
        }, 50);
        void exited.then((code) => {
          clearTimeout(timer);
          clearInterval(check);
          reject(new Error(`the demo exited with ${code}: ${err}`));
        });
      });

      const vscode = block(out, "VS Code").servers.finance;
      expect(vscode.type).to.equal("http");
      const url: string = vscode.url;
      const authorization: string = vscode.headers.Authorization;
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/mcp$/);
      expect(authorization).to.match(/^Bearer fmcp_/);
      // Every client's configuration names the same server and token.
      expect(out).to.include(`claude mcp add --transport http finance ${url} --header "Authorization: ${authorization}"`);
      expect(block(out, "Cursor").mcpServers.finance).to.deep.equal({ url, headers: { Authorization: authorization } });
      expect(block(out, "Gemini CLI").mcpServers.finance).to.deep.equal({ httpUrl: url, headers: { Authorization: authorization } });
      const desktop = block(out, "Claude Desktop").mcpServers.finance;
      expect(desktop.command).to.equal("npx");
      expect(desktop.args).to.deep.equal(["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"]);
      expect(desktop.env).to.deep.equal({ AUTH_HEADER: authorization });

      const client = new Client({ name: "demo-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: authorization } } }));
      try {
        const tools = await client.listTools();
        expect(tools.tools.map((t) => t.name)).to.include.members(["list_transactions", "create_transaction", "get_budget_status"]);
        const structured = async (name: string, args: Record<string, unknown> = {}) => {
          const r = await client.callTool({ name, arguments: args });
          expect(r.isError, JSON.stringify(r.content)).to.not.equal(true);
          return r.structuredContent as any;
        };
        const wallets = (await structured("list_wallets")).wallets as { currency: string }[];
        expect(new Set(wallets.map((w) => w.currency))).to.deep.equal(new Set(["EUR", "USD"]));
        const txns = (await structured("list_transactions", { limit: 200 })).transactions as { date: string }[];
        const months = new Set(txns.map((t) => t.date.slice(0, 7)));
        expect(months.size).to.be.at.least(3);
        expect((await structured("list_budgets")).budgets).to.have.length(4);
        expect((await structured("list_goals")).goals).to.have.length(1);
        expect((await structured("list_bill_reminders")).reminders).to.have.length(5);
        // Every scope: a write works too.
        const eur = (await structured("list_wallets")).wallets.find((w: { currency: string }) => w.currency === "EUR");
        const created = await structured("create_transaction", {
          wallet_id: eur.id,
          amount: "3.20",
          direction: "expense",
          payee: "Bakery",
          idempotency_key: crypto.randomUUID(),
        });
        expect(created.status).to.equal("committed");
      } finally {
        await client.close();
      }
    } finally {
      child.kill("SIGTERM");
      expect(await exited).to.equal(0);
    }
  });
});
