/**
 * The generated TypeScript client (clients/typescript): it builds with tsc, `npm pack` gives a package
 * that installs into another project, and the installed package calls EVERY tool of openrpc.json against
 * a running server, in the example world (test/contract/example-world.ts), with each tool's first
 * example's params, so tools added later are covered without touching this test.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { seedExampleWorld } from "./example-world.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLIENT = join(ROOT, "clients/typescript");
const spec = JSON.parse(readFileSync(join(ROOT, "openrpc.json"), "utf8"));
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

describe(`generated TypeScript client: build, pack, install, every tool (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let token: string;
  let project: string;
  let sdk: any;
  before(async () => {
    execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", CLIENT], { stdio: "pipe" });
    project = mkdtempSync(join(tmpdir(), "fmcp-client-"));
    const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", project], { cwd: CLIENT, encoding: "utf8" }).trim().split("\n").pop()!;
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "other-team", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(project, packed)], { cwd: project, stdio: "pipe" });
    sdk = await import(join(project, "node_modules/@finance-mcp/client/dist/index.js"));
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
    token = await seedExampleWorld(server);
  });
  after(async () => {
    await server?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("the installed package has a typed method for every tool", () => {
    const client = new sdk.FinanceMcpClient(server.url, token);
    expect(client.endpoint).to.equal(server.mcpUrl);
    for (const m of spec.methods) expect(typeof client[camel(m.name)], m.name).to.equal("function");
  });

  // Reads first, so the writes' changes do not surprise them; deletes in the examples are dry runs.
  const ordered = [...spec.methods].sort((a: any, b: any) => (a["x-kind"] === b["x-kind"] ? 0 : a["x-kind"] === "read" ? -1 : 1));
  for (const m of ordered) {
    it(`calls ${m.name} through the client`, async function () {
      const client = new sdk.FinanceMcpClient(server.url, token);
      const params = Object.fromEntries((m.examples[0]?.params ?? []).map((p: any) => [p.name, p.value]));
      if ("idempotency_key" in params) params.idempotency_key = sdk.newIdempotencyKey();
      const result: unknown = await client[camel(m.name)](params);
      const tool = toolsByName.get(m.name)!;
      expect(tool.validateResult(structuredClone(result)), JSON.stringify(tool.validateResult.errors)).to.equal(true);
    });
  }

  it("rejects with FinanceMcpError carrying data.code, and replays a write retried with the same idempotency key", async () => {
    const client = new sdk.FinanceMcpClient(server.mcpUrl, token);
    const err = await client.deleteTransaction({ id: "txn_doesnotexist0000001", dry_run: true, idempotency_key: sdk.newIdempotencyKey() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(sdk.FinanceMcpError);
    expect(err.data.code).to.be.oneOf(["not_found", "invalid_params"]);
    const key = sdk.newIdempotencyKey();
    const first = await client.createWallet({ name: "SDK wallet", type: "cash", currency: "USD", idempotency_key: key });
    const again = await client.createWallet({ name: "SDK wallet", type: "cash", currency: "USD", idempotency_key: key });
    expect(again.wallet?.id ?? again.id).to.equal(first.wallet?.id ?? first.id);
    const bad = await new sdk.FinanceMcpClient(server.url, "fmcp_wrong").whoami().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(bad.httpStatus).to.equal(401);
    expect(bad.data.code).to.equal("unauthorized");
  });
});
