/**
 * Pins the published contract: rpc.discover and GET /api/v1/openrpc.json serve clients/openrpc/openrpc.json
 * (openrpc.json as codegen publishes it for client generators, codegen/emit-published.ts), no token needed.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { engine } from "../helpers/database.js";

const spec = JSON.parse(readFileSync(new URL("../../clients/openrpc/openrpc.json", import.meta.url), "utf8"));

describe(`published contract (${engine})`, () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.close());

  it("answers rpc.discover with the raw document", async () => {
    const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: "rpc.discover" });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ jsonrpc: "2.0", id: 1, result: spec });
  });

  it("serves GET /api/v1/openrpc.json without a token", async () => {
    const res = await fetch(`${server.url}/api/v1/openrpc.json`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal(spec);
  });
});
