/**
 * Lifecycle per protocol revision: initialize and version negotiation (2025-11-25, 2025-06-18,
 * 2025-03-26), the MCP-Protocol-Version header, ping, and the stateless 2026-07-28 revision
 * (server/discover, Mcp-Method/Mcp-Name checked against the body, resultType, its error codes).
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { MODERN_META, modernRequest } from "./helpers.js";

const specInstructions: string = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8")).info["x-instructions"];

const LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"];

describe(`protocol: lifecycle and revisions (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server.close());

  const rpc = (body: unknown, headers: Record<string, string> = {}) => server.rpc(body, user.token, headers);
  const initialize = (protocolVersion: unknown) =>
    rpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } } });

  describe("initialize-based revisions", () => {
    for (const version of LEGACY) {
      it(`echoes ${version}, with serverInfo, capabilities.tools and instructions`, async () => {
        const a = await initialize(version);
        expect(a.status).to.equal(200);
        // A session names where the client's declared capabilities are kept (docs/decisions.md#capabilities-per-session).
        expect(a.headers.get("mcp-session-id"), "the initialize answer names a session").to.match(/^[A-Za-z0-9_-]{20,}$/);
        const r = a.body.result;
        expect(r.protocolVersion).to.equal(version);
        expect(r.serverInfo).to.include({ name: "finance-mcp" });
        expect(r.serverInfo.version).to.match(/^\d+\.\d+\.\d+/);
        expect(r.capabilities).to.deep.equal({
          tools: { listChanged: false },
          resources: { subscribe: false, listChanged: false },
          prompts: { listChanged: false },
          completions: {},
        });
        expect(r.instructions).to.be.a("string").and.have.length.within(50, 2048);
        expect(r.instructions, "generated from openrpc.json info.x-instructions").to.equal(specInstructions);
        expect(r).to.not.have.property("resultType");
      });
    }

    for (const requested of ["2024-11-05", "1999-01-01", "2026-07-28"]) {
      it(`answers 2025-11-25 to a client requesting ${requested}`, async () => {
        const a = await initialize(requested);
        expect(a.body.result.protocolVersion).to.equal("2025-11-25");
      });
    }

    it("refuses an initialize without protocolVersion with -32602", async () => {
      const a = await rpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } });
      expect(a.body.error.code).to.equal(-32602);
      expect(a.body.error.data.field).to.equal("protocolVersion");
    });

    it("accepts notifications/initialized with 202 and no body", async () => {
      const a = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-protocol-version": "2025-11-25" });
      expect(a.status).to.equal(202);
      expect(a.body).to.equal(undefined);
    });

    it("answers ping with {}", async () => {
      const a = await rpc({ jsonrpc: "2.0", id: "123", method: "ping" });
      expect(a.body).to.deep.equal({ jsonrpc: "2.0", id: "123", result: {} });
    });

    for (const version of LEGACY) {
      it(`accepts MCP-Protocol-Version: ${version}`, async () => {
        const a = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-protocol-version": version });
        expect(a.status).to.equal(200);
        expect(a.body.result.tools).to.be.an("array").that.is.not.empty;
        expect(a.body.result).to.not.have.property("resultType");
      });
    }

    it("refuses an unsupported MCP-Protocol-Version with 400 and -32022 listing the supported versions", async () => {
      for (const v of ["1999-01-01", "2024-11-05", "latest"]) {
        const a = await rpc({ jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-protocol-version": v });
        expect(a.status, v).to.equal(400);
        expect(a.body.error.code).to.equal(-32022);
        expect(a.body.error.data).to.deep.include({ code: "unsupported_protocol_version", requested: v });
        expect(a.body.error.data.supported).to.deep.equal(["2026-07-28", ...LEGACY]);
      }
    });

    it("serves a client that only speaks 2025-03-26 (no MCP-Protocol-Version header at all)", async () => {
      const init = await initialize("2025-03-26");
      expect(init.body.result.protocolVersion).to.equal("2025-03-26");
      expect((await rpc({ jsonrpc: "2.0", method: "notifications/initialized" })).status).to.equal(202);
      const list = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      expect(list.body.result.tools.map((t: any) => t.name)).to.include("whoami");
      const call = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } });
      expect(call.body.result.structuredContent.user_id).to.equal(user.id);
    });
  });

  describe("2026-07-28 (stateless)", () => {
    it("answers server/discover with the supported versions, capabilities, identity and caching hints", async () => {
      const { body, headers } = modernRequest(1, "server/discover");
      const a = await rpc(body, headers);
      expect(a.status).to.equal(200);
      const r = a.body.result;
      expect(r.resultType).to.equal("complete");
      expect(r.supportedVersions).to.deep.equal(["2026-07-28", ...LEGACY]);
      expect(r.capabilities).to.deep.equal({
        tools: { listChanged: false },
        resources: { subscribe: false, listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      });
      expect(r.instructions).to.equal(specInstructions);
      expect(r._meta["io.modelcontextprotocol/serverInfo"]).to.include({ name: "finance-mcp" });
      expect(r.ttlMs).to.be.a("number").at.least(0);
      expect(r.cacheScope).to.equal("public");
    });

    it("puts resultType on every result, and private caching hints on tools/list (it depends on the token)", async () => {
      const list = modernRequest(2, "tools/list");
      const l = await rpc(list.body, list.headers);
      expect(l.body.result).to.include({ resultType: "complete", cacheScope: "private" });
      expect(l.body.result.ttlMs).to.be.a("number");
      const call = modernRequest(3, "tools/call", { name: "whoami", arguments: {} });
      const c = await rpc(call.body, call.headers);
      expect(c.body.result.resultType).to.equal("complete");
      expect(c.body.result.structuredContent.user_id).to.equal(user.id);
    });

    it("decodes a Base64-wrapped Mcp-Name before comparing it", async () => {
      const call = modernRequest(4, "tools/call", { name: "whoami", arguments: {} });
      const a = await rpc(call.body, { ...call.headers, "mcp-name": `=?base64?${Buffer.from("whoami").toString("base64")}?=` });
      expect(a.status).to.equal(200);
      expect(a.body.result.resultType).to.equal("complete");
    });

    const mismatches: [string, (h: Record<string, string>) => Record<string, string>][] = [
      ["a missing Mcp-Method", ({ "mcp-method": _, ...h }) => h],
      ["Mcp-Method disagreeing with the body", (h) => ({ ...h, "mcp-method": "tools/list" })],
      ["a missing Mcp-Name on tools/call", ({ "mcp-name": _, ...h }) => h],
      ["Mcp-Name disagreeing with the body", (h) => ({ ...h, "mcp-name": "list_wallets" })],
      ["a missing MCP-Protocol-Version", ({ "mcp-protocol-version": _, ...h }) => h],
    ];
    for (const [what, edit] of mismatches) {
      it(`refuses ${what} with 400 and -32020 HeaderMismatch`, async () => {
        const call = modernRequest(5, "tools/call", { name: "whoami", arguments: {} });
        const a = await rpc(call.body, edit(call.headers));
        expect(a.status).to.equal(400);
        expect(a.body.error.code).to.equal(-32020);
        expect(a.body.error.data.code).to.equal("header_mismatch");
        expect(a.body.id).to.equal(5);
      });
    }

    it("refuses a 2026-07-28 request without _meta, or without its protocol version, with 400 and -32602", async () => {
      const { "io.modelcontextprotocol/protocolVersion": _, ...noVersion } = MODERN_META;
      for (const params of [{}, { _meta: noVersion }]) {
        const a = await rpc({ jsonrpc: "2.0", id: 6, method: "tools/list", params }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" });
        expect(a.status).to.equal(400);
        expect(a.body.error.code).to.equal(-32602);
        expect(a.body.error.data.field).to.match(/^params\._meta/);
        expect(a.body.id).to.equal(6);
      }
    });

    it("compares header and body versions before support: 2026-07-28 header with body v999.0.0 is -32020", async () => {
      const body = {
        jsonrpc: "2.0",
        id: 7,
        method: "server/discover",
        params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "v999.0.0" } },
      };
      const a = await rpc(body, { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" });
      expect(a.status).to.equal(400);
      expect(a.body.error.code).to.equal(-32020);
      expect(a.body.error.data.code).to.equal("header_mismatch");
    });

    it("refuses an unsupported _meta protocol version (header agreeing) with 400 and -32022", async () => {
      const body = {
        jsonrpc: "2.0",
        id: 7,
        method: "server/discover",
        params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
      };
      const a = await rpc(body, { "mcp-protocol-version": "2027-01-01", "mcp-method": "server/discover" });
      expect(a.status).to.equal(400);
      expect(a.body.error.code).to.equal(-32022);
      expect(a.body.error.data.supported).to.include("2026-07-28");
    });

    it("refuses a request without _meta clientCapabilities with 400 and -32602", async () => {
      const { "io.modelcontextprotocol/clientCapabilities": _, ...meta } = MODERN_META;
      const a = await rpc(
        { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: meta } },
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      );
      expect(a.status).to.equal(400);
      expect(a.body.error.code).to.equal(-32602);
    });

    it("answers unknown methods, and the removed ping and initialize, with 404 and -32601", async () => {
      for (const method of ["logging/setLevel", "ping", "initialize"]) {
        const { body, headers } = modernRequest(9, method);
        const a = await rpc(body, headers);
        expect(a.status, method).to.equal(404);
        expect(a.body.error.code).to.equal(-32601);
      }
    });

    it("answers an unknown tool with a JSON-RPC error, not a tool result", async () => {
      const call = modernRequest(10, "tools/call", { name: "no_such_tool", arguments: {} });
      const a = await rpc(call.body, call.headers);
      expect(a.body.error.code).to.equal(-32602);
      expect(a.body.error.data.code).to.equal("unknown_tool");
    });
  });
});
