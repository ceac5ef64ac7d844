/**
 * WRITE_TOOLS=disabled: every write tool (from the registry) is missing from list_capabilities and MCP
 * tools/list and refused with writes_disabled, also as a dry run and over tools/call; reads are
 * unaffected.
 */
import { expect } from "chai";
import { tools } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { exampleParams, LEGACY_MCP_VERSION, mcpToolNames } from "./spec.js";

const writes = tools.filter((t) => t.kind === "write");
const reads = tools.filter((t) => t.kind === "read");

describe(`WRITE_TOOLS=disabled (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer({ WRITE_TOOLS: "disabled" });
    user = await server.createUser();
  });
  after(async () => server.close());

  it("the registry has write tools to test", () => {
    expect(writes.length).to.be.greaterThan(10);
  });

  it("list_capabilities shows every read tool and no write tool, and says writes are off", async () => {
    const result = await server.call("list_capabilities", {}, user.token);
    expect(result.tools.map((t: { name: string }) => t.name)).to.deep.equal(reads.map((t) => t.name));
    expect(result.writes_enabled).to.equal(false);
  });

  it("MCP tools/list shows no write tool", async function () {
    const names = await mcpToolNames(server, user.token);
    expect(names).to.deep.equal(reads.map((t) => t.name));
  });

  for (const tool of writes) {
    it(`refuses ${tool.name} with writes_disabled, dry run or not, and changes nothing`, async () => {
      const before = await server
        .db("audit_log")
        .count<{ n: unknown }[]>({ n: "*" })
        .catch(() => undefined);
      for (const dry_run of [false, true]) {
        const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: tool.name, params: { ...exampleParams(tool.name), dry_run } }, user.token);
        expect(answer.status).to.equal(200);
        expect(answer.body.error.code).to.equal(-32003);
        expect(answer.body.error.data).to.include({ code: "writes_disabled", retryable: false });
        expect(answer.body.error.message).to.match(/disabled/i);
      }
      const after = await server
        .db("audit_log")
        .count<{ n: unknown }[]>({ n: "*" })
        .catch(() => undefined);
      expect(after).to.deep.equal(before);
    });
  }

  it("refuses write tools over MCP tools/call too", async function () {
    for (const tool of writes) {
      const answer = await server.rpc(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: tool.name, arguments: exampleParams(tool.name) } },
        user.token,
        {
          "mcp-protocol-version": LEGACY_MCP_VERSION,
        },
      );
      expect(answer.status).to.equal(200);
      const text = JSON.stringify(answer.body);
      expect(answer.body.result?.isError ?? answer.body.error !== undefined, text).to.equal(true);
      expect(text).to.include("writes_disabled");
    }
  });

  for (const tool of reads) {
    it(`still answers ${tool.name}`, async () => {
      const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: tool.name, params: exampleParams(tool.name) }, user.token);
      expect(answer.status).to.equal(200);
      expect(answer.body.error?.data?.code, JSON.stringify(answer.body)).to.not.equal("writes_disabled");
    });
  }
});
