/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13, the last release that
 * runs on Node 20) against the real server, through a loopback proxy that adds the bearer token (the
 * suite cannot send one) and leaves Host and Origin alone, so the server's own DNS-rebinding checks are
 * what the suite tests.
 *
 * Scenarios: every server scenario that applies to a server without the suite's fixture tools, prompts
 * and resources (see docs/protocol.md): server-initialize, ping, tools-list, dns-rebinding-protection,
 * and server-sse-multiple-streams (for a stateless server it only warns; no check may fail).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startAuthProxy, type AuthProxy } from "./conformance-proxy.js";

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");

const MUST_PASS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];
const NO_FAILURES = ["server-sse-multiple-streams"];

interface Check {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

function runScenario(url: string, scenario: string, outDir: string): Promise<{ code: number; output: string; checks: Check[] }> {
  return new Promise((resolve) => {
    // Asynchronous on purpose: the server under test runs in this process.
    execFile(process.execPath, [CLI, "server", "--url", url, "--scenario", scenario, "-o", outDir], { timeout: 60_000, encoding: "utf8" }, (err, stdout, stderr) => {
      const dir = readdirSync(outDir).find((d) => d.startsWith(`server-${scenario}-`));
      const checks = dir ? (JSON.parse(readFileSync(join(outDir, dir, "checks.json"), "utf8")) as Check[]) : [];
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}`.slice(-4000), checks });
    });
  });
}

describe(`protocol: MCP conformance suite (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let proxy: AuthProxy;
  let outDir: string;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" });
    const user = await server.createUser();
    proxy = await startAuthProxy(Number(new URL(server.url).port), user.token);
    outDir = mkdtempSync(join(tmpdir(), "fmcp-conformance-"));
  });
  after(async () => {
    await proxy?.close();
    await server?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  for (const scenario of MUST_PASS) {
    it(`passes ${scenario}`, async () => {
      const r = await runScenario(proxy.url, scenario, outDir);
      expect(r.checks.length, r.output).to.be.greaterThan(0);
      const bad = r.checks.filter((c) => c.status !== "SUCCESS");
      expect(bad, r.output).to.deep.equal([]);
      expect(r.code, r.output).to.equal(0);
    });
  }

  for (const scenario of NO_FAILURES) {
    it(`has no failing check in ${scenario} (stateless server: warning only)`, async () => {
      const r = await runScenario(proxy.url, scenario, outDir);
      expect(r.checks.filter((c) => c.status === "FAILURE"), r.output).to.deep.equal([]);
      expect(r.code, r.output).to.equal(0);
    });
  }
});
