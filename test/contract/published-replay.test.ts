/**
 * The published contract holds on any day (issue 52 item 1): every example of the document a client reads
 * (rpc.discover, GET /api/v1/openrpc.json, clients/openrpc/openrpc.json) is called, as published, against a
 * live server whose clock is the real one, over the example world; each call must be accepted and its
 * answer valid against the method's result schema. (The by-value comparison is test/contract/replay.test.ts,
 * at the examples' own date: here the numbers of today's world differ by design.)
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { seedExampleWorld } from "./example-world.js";
import { KNOWN_GAPS } from "./known-gaps.js";

const gaps = new Set(KNOWN_GAPS.filter((g) => g.example === undefined).map((g) => g.tool));
const publishedFile = JSON.parse(readFileSync(new URL("../../clients/openrpc/openrpc.json", import.meta.url), "utf8"));

describe(`published examples on today's clock (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let token: string;
  let discovered: any;
  before(async () => {
    server = await startTestServer({ PUBLIC_URL: "https://finance.example.com" });
    token = await seedExampleWorld(server);
    discovered = (await server.rpc({ jsonrpc: "2.0", id: 1, method: "rpc.discover" })).body.result;
  });
  after(async () => server?.close());

  it("rpc.discover, GET /api/v1/openrpc.json and clients/openrpc/openrpc.json publish the same examples", async () => {
    const served = await (await fetch(`${server.url}/api/v1/openrpc.json`)).json();
    expect(served).to.deep.equal(discovered);
    expect(discovered).to.deep.equal(publishedFile);
  });

  it("every published example is accepted today, and its answer is valid", async () => {
    // Reads first, then dry runs, then commits, as test/contract/replay.test.ts orders them.
    const stage = (method: any, ex: any) => (method["x-kind"] === "read" ? 0 : ex.params.some((p: any) => p.name === "dry_run" && p.value === true) ? 1 : 2);
    const ordered = (discovered.methods as any[])
      .flatMap((method) => (method.examples ?? []).map((ex: any) => ({ method, ex })))
      .map((e, i) => ({ ...e, i }))
      .sort((a, b) => stage(a.method, a.ex) - stage(b.method, b.ex) || a.i - b.i);
    expect(ordered.length).to.be.greaterThan(20);
    const refused: string[] = [];
    for (const { method, ex } of ordered) {
      if (gaps.has(method.name)) continue;
      const params = Object.fromEntries(ex.params.map((p: any) => [p.name, p.value]));
      const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: method.name, params }, token);
      if (answer.body.error) {
        refused.push(`${method.name}: ${ex.name}: ${answer.body.error.message}`);
        continue;
      }
      const tool = toolsByName.get(method.name)!;
      expect(tool.validateResult(structuredClone(answer.body.result)), `${method.name}: ${ex.name}: ${JSON.stringify(tool.validateResult.errors)}`).to.equal(
        true,
      );
    }
    expect(refused, "published examples refused on today's clock").to.deep.equal([]);
  });
});
