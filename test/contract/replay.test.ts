/**
 * Replays every example of openrpc.json against the running server, in the example world, at the
 * examples' date (2026-03-15), and validates each answer against the method's result schema. Values
 * that depend on stored data need not equal the example's. A tool that is still a stub (not_implemented)
 * is reported pending, so the replay grows as tools become real.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { RpcCallError, startTestServer, type TestServer } from "../helpers/server.js";
import { seedExampleWorld } from "./example-world.js";

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));

describe(`contract replay of openrpc.json examples (${engine})`, () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
    token = await seedExampleWorld(server.db, server.config.tokenPepper);
  });
  after(async () => server.close());

  // Reads first, so the writes' changes do not surprise them; deletes in the examples are dry runs.
  const ordered = [...spec.methods].sort((a: any, b: any) => (a["x-kind"] === b["x-kind"] ? 0 : a["x-kind"] === "read" ? -1 : 1));
  for (const method of ordered) {
    for (const ex of method.examples) {
      it(`${method.name}: ${ex.name}`, async function () {
        const params = Object.fromEntries(ex.params.map((p: any) => [p.name, p.value]));
        let result: unknown;
        try {
          result = await server.call(method.name, params, token);
        } catch (err) {
          if (err instanceof RpcCallError && err.error.data?.code === "not_implemented") this.skip();
          throw err;
        }
        const tool = toolsByName.get(method.name)!;
        expect(tool.validateResult(structuredClone(result)), JSON.stringify(tool.validateResult.errors)).to.equal(true);
        if (method["x-kind"] === "write") {
          expect((result as { status: string }).status).to.equal(params.dry_run ? "dry_run" : "committed");
        }
      });
    }
  }
});
