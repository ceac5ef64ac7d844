/**
 * Other teams' generator works: the newest @open-rpc/generator (tools/openrpc-generator, `npm run
 * generator:install`) makes a TypeScript client from the published document (clients/openrpc/openrpc.json,
 * what rpc.discover serves), a current TypeScript compiles it strictly as it is generated (its own
 * tsconfig, strict: true; the generator's pinned TypeScript 4.2 cannot read today's type packages, and a
 * current one is the only fix), and the compiled client calls two tools against a real server: a read and
 * a write, each with a required param after optional ones in the spec (docs/decisions.md, "Room for the
 * next tools"; the transform is codegen/emit-published.ts).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { skipWithout } from "../helpers/external.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { seedExampleWorld } from "./example-world.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TOOLS = join(ROOT, "tools/openrpc-generator");
const BIN = join(TOOLS, "node_modules/.bin");
const PUBLISHED = join(ROOT, "clients/openrpc/openrpc.json");
const spec = JSON.parse(readFileSync(join(ROOT, "openrpc.json"), "utf8"));
/** A method's param names in the published order ($refs to components/contentDescriptors resolved). */
const paramOrder = (doc: any, method: string): string[] =>
  doc.methods.find((m: any) => m.name === method).params.map((p: any) => (p.$ref ? doc.components.contentDescriptors[p.$ref.split("/").pop()] : p).name);
const example = (method: string): Record<string, any> =>
  Object.fromEntries(spec.methods.find((m: any) => m.name === method).examples[0].params.map((p: any) => [p.name, p.value]));

describe(`@open-rpc/generator's TypeScript client from the published document (${engine})`, function () {
  this.timeout(300_000);
  let dir: string;
  let server: TestServer;
  let client: any;
  let published: any;

  before(async function () {
    if (!existsSync(join(BIN, "open-rpc-generator")) || !existsSync(join(BIN, "tsc")))
      skipWithout(this, "generator", `@open-rpc/generator is not installed in ${TOOLS}`);
    published = JSON.parse(readFileSync(PUBLISHED, "utf8"));
    dir = mkdtempSync(join(tmpdir(), "fmcp-openrpc-generator-"));
    execFileSync(join(BIN, "open-rpc-generator"), ["generate", "-d", PUBLISHED, "-o", dir, "-t", "client", "-l", "typescript", "-n", "finance-client"], {
      stdio: "pipe",
    });
    const pkg = join(dir, "client/typescript");
    symlinkSync(join(TOOLS, "node_modules"), join(pkg, "node_modules"), "dir");
    try {
      execFileSync(join(BIN, "tsc"), ["-p", pkg], { stdio: "pipe", encoding: "utf8" });
    } catch (err: any) {
      throw new Error(`the generated client does not compile:\n${String(err.stdout).split("\n").slice(0, 30).join("\n")}`, { cause: err });
    }
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
    const token = await seedExampleWorld(server);
    const { default: FinanceMcp } = createRequire(import.meta.url)(join(pkg, "build/index.js"));
    const { hostname, port } = new URL(server.url);
    client = new FinanceMcp({ transport: { type: "http", host: hostname, port: Number(port), path: "/api/v1/mcp" } });
    // The generated constructor takes no headers: the bearer token goes on its HTTP transport's headers.
    client.transport.headers.set("Authorization", `Bearer ${token}`);
  });
  after(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the published document is the spec with its fixes (version, statuses, titles, positional params, examples with results), and keeps every HTTP status", () => {
    expect(published.openrpc).to.equal("1.2.6");
    expect(JSON.stringify(published)).not.to.include('"x-http-status":4');
    const statuses = Object.fromEntries(
      Object.entries(spec.components.errors).flatMap(([name, e]: [string, any]) => (e["x-http-status"] ? [[name, e["x-http-status"]]] : [])),
    );
    expect(published.info["x-http-status"]).to.deep.equal(statuses);
    for (const m of published.methods) {
      expect(m.paramStructure).to.equal("by-position");
      const required = m.params.map((p: any) =>
        p.$ref ? published.components.contentDescriptors[p.$ref.split("/").pop()].required === true : p.required === true,
      );
      expect(required.indexOf(false) === -1 || required.lastIndexOf(true) < required.indexOf(false), `${m.name}: required params first`).to.equal(true);
      expect(m.result.schema.title ?? m.result.schema.$ref, `${m.name}: a named result`).to.be.a("string");
      // The meta-schema 1.2.6 requires an example's result: refusals (x-error) stay in the spec only.
      for (const e of m.examples ?? []) expect(e.result, `${m.name}: ${e.name} has a result`).to.not.equal(undefined);
    }
  });

  it("calls a read tool, list_transactions, with optional params only", async () => {
    const params = example("list_transactions");
    const order = paramOrder(published, "list_transactions");
    const page = await client.list_transactions(...order.map((n: string) => params[n]));
    expect(page.transactions).to.be.an("array").that.is.not.empty;
    for (const t of page.transactions) expect(t.date >= params.date_from && t.date <= params.date_to, t.date).to.equal(true);
  });

  it("calls a write tool, create_budget, whose required idempotency_key follows optional params in the spec", async () => {
    const params: Record<string, any> = { ...example("create_budget"), idempotency_key: randomUUID(), dry_run: true };
    const order = paramOrder(published, "create_budget");
    expect(order.slice(0, 4)).to.deep.equal(["name", "amount", "period", "idempotency_key"]);
    const answer = await client.create_budget(...order.map((n: string) => params[n]));
    expect(answer.status).to.equal("dry_run");
    expect(answer.budget.name).to.equal(params.name);
  });
});
