/**
 * tools/list and tools/call over MCP: the list filtered by the token's scopes and the write switch, in
 * registry order, with everything from the registry; calls through the one dispatch path, with
 * structuredContent + text on success, isError results for what a model can fix, and JSON-RPC/HTTP
 * errors for unknown tools, credentials, scopes and rate limits.
 */
import { expect } from "chai";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
import { tools, toolsByName } from "../../generated/registry.js";
import { BUDGETS, allowedFor, tokens } from "../../codegen/budgets.js";
import { SERVER_INFO } from "../../src/mcp/lifecycle.js";
import { modelText } from "../../src/mcp/model-text.js";
import { SerializedJson, stringifyResponse } from "../../src/mcp/serialized.js";
import { listTools } from "../../src/mcp/tools.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { JSON_HEADERS, MODERN_META, raw } from "./helpers.js";

const call = (id: number, name: string, args?: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe(`protocol: tools/list and tools/call (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server.close());

  it("lists every tool for an all-scopes token, in registry order, with the registry's fields", async () => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, user.token);
    const listed = a.body.result.tools as any[];
    expect(listed.map((t) => t.name)).to.deep.equal(tools.map((t) => t.name));
    for (const t of listed) {
      const def = toolsByName.get(t.name)!;
      expect(t.title).to.equal(def.title);
      expect(t.description).to.equal(def.description).and.not.equal("");
      expect(t.inputSchema).to.deep.equal(def.inputSchema);
      expect(t.inputSchema.type).to.equal("object");
      expect(t.outputSchema).to.deep.equal(def.outputSchema);
      expect(t.outputSchema.type).to.equal("object");
      expect(t.annotations).to.deep.include(def.annotations);
    }
    expect(a.body.result).to.not.have.property("nextCursor");
  });

  it("lists 2020-12 schemas: no draft-07 $schema, no type arrays, and ajv's 2020-12 build compiles them all", async () => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, user.token);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const t of a.body.result.tools as any[]) {
      for (const key of ["inputSchema", "outputSchema"]) {
        const text = JSON.stringify(t[key]);
        expect(text, `${t.name} ${key}`).to.not.contain("$schema");
        expect(text, `${t.name} ${key}`).to.not.match(/"type":\[/);
        expect(() => ajv.compile(t[key]), `${t.name} ${key}`).to.not.throw();
      }
    }
  });

  it("costs a model what codegen's budgets allow: the tools/list a client receives, counted with o200k", async () => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, user.token);
    const listed = a.body.result.tools as any[];
    const visible = listed.map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations }));
    // The budget scales with the number of tools listed (no count or total pinned here).
    expect(tokens({ tools: visible })).to.be.at.most(allowedFor(listed.length));
    for (const t of visible) expect(tokens(t), t.name).to.be.at.most(BUDGETS.maxToolTokens);
    expect(tokens(a.body.result)).to.be.at.most(BUDGETS.wholeTokens);
    for (const t of listed) expect(t.description.length, t.name).to.be.at.most(BUDGETS.descriptionChars);
  });

  it("lists only the tools the token's scopes allow", async () => {
    const scopes = ["read:wallets", "write:wallets", "meta:whoami"];
    const token = await user.tokenWith(scopes);
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, token);
    const expected = tools.filter((t) => scopes.includes(t.scope)).map((t) => t.name);
    expect(a.body.result.tools.map((t: any) => t.name)).to.deep.equal(expected);
    expect(expected).to.include.members(["whoami", "list_wallets", "create_wallet"]);
  });

  describe("the list's text, made once per scope set and era", () => {
    const listRaw = (token: string, id: unknown, modern = false) =>
      raw(server.mcpUrl, {
        headers: {
          ...JSON_HEADERS,
          authorization: `Bearer ${token}`,
          ...(modern ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" } : { "mcp-protocol-version": "2025-11-25" }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(modern ? { params: { _meta: MODERN_META } } : {}) }),
      });
    // What the server sent before the text was cached: JSON.stringify of the whole response.
    const uncached = (id: unknown, scopes: string[], modern = false) => {
      const result = { tools: listTools(new Set(scopes), server.config) };
      return JSON.stringify({
        jsonrpc: "2.0",
        id,
        result: modern
          ? { ...result, ttlMs: 300_000, cacheScope: "private", resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO } }
          : result,
      });
    };

    it("gives two tokens with different scopes their own lists, and one token the same bytes each time", async () => {
      const walletScopes = ["read:wallets", "write:wallets"];
      const budgetScopes = ["read:budgets", "meta:whoami"];
      const wallets = await user.tokenWith(walletScopes);
      const budgets = await user.tokenWith(budgetScopes);
      for (const modern of [false, true]) {
        const w1 = await listRaw(wallets, 1, modern);
        const b1 = await listRaw(budgets, 1, modern);
        const w2 = await listRaw(wallets, 1, modern);
        const b2 = await listRaw(budgets, 1, modern);
        expect(w1.status).to.equal(200);
        expect(w1.json.result.tools.map((t: any) => t.name)).to.deep.equal(tools.filter((t) => walletScopes.includes(t.scope)).map((t) => t.name));
        expect(b1.json.result.tools.map((t: any) => t.name)).to.deep.equal(tools.filter((t) => budgetScopes.includes(t.scope)).map((t) => t.name));
        expect(w1.text).to.not.equal(b1.text);
        expect(w2.text).to.equal(w1.text);
        expect(b2.text).to.equal(b1.text);
        expect(w1.text).to.equal(uncached(1, walletScopes, modern));
        expect(b2.text).to.equal(uncached(1, budgetScopes, modern));
      }
    });

    it("echoes each request's id around the shared list, byte for byte what JSON.stringify gave", async () => {
      const scopes = ["read:goals", "write:goals"];
      const token = await user.tokenWith(scopes);
      for (const id of [7, 0, -1.5, "a", 'quote " and \\ backslash', "ünïcode", null]) {
        const a = await listRaw(token, id);
        expect(a.json.id).to.deep.equal(id);
        expect(a.text).to.equal(uncached(id, scopes));
      }
      // The legacy and modern answers differ (caching hints): the era is part of the key.
      const legacy = await listRaw(token, 1);
      const modern = await listRaw(token, 1, true);
      expect(legacy.json.result).to.not.have.property("resultType");
      expect(modern.json.result).to.include({ resultType: "complete", cacheScope: "private" });
    });

    it("splices a serialised result exactly where JSON.stringify would put it", () => {
      const value = { tools: [{ name: "x", n: 1.5, s: '\u2028 "q"' }] };
      for (const id of [1, "id", null]) {
        expect(stringifyResponse({ jsonrpc: "2.0", id, result: new SerializedJson(JSON.stringify(value)) })).to.equal(
          JSON.stringify({ jsonrpc: "2.0", id, result: value }),
        );
      }
      expect(stringifyResponse({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } })).to.equal(
        '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
      );
      // Anything that stringifies it without knowing (a log, a test) still gets the value.
      expect(JSON.stringify({ r: new SerializedJson('{"a":[1]}') })).to.equal('{"r":{"a":[1]}}');
    });
  });

  it("refuses a cursor (the list is one page) with -32602", async () => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: "abc" } }, user.token);
    expect(a.body.error.code).to.equal(-32602);
  });

  it("returns structuredContent valid against the outputSchema and its compact rendering as text", async () => {
    const a = await server.rpc(call(2, "whoami", {}), user.token);
    expect(a.status).to.equal(200);
    const r = a.body.result;
    expect(r.isError ?? false).to.equal(false);
    expect(r.structuredContent.user_id).to.equal(user.id);
    expect(toolsByName.get("whoami")!.validateResult(r.structuredContent)).to.equal(true);
    expect(r.content).to.have.length(1);
    expect(r.content[0].type).to.equal("text");
    expect(r.content[0].text).to.equal(modelText(r.structuredContent));
  });

  it("accepts a call without arguments", async () => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami" } }, user.token);
    expect(a.body.result.structuredContent.user_id).to.equal(user.id);
  });

  it("turns invalid arguments into an isError result naming the field and what it expects", async () => {
    const a = await server.rpc(call(4, "list_transactions", { limit: "ten" }), user.token);
    expect(a.status).to.equal(200);
    const r = a.body.result;
    expect(r.isError).to.equal(true);
    expect(r).to.not.have.property("structuredContent");
    const text: string = r.content[0].text;
    expect(text).to.contain("limit");
    const data = JSON.parse(text.slice(text.indexOf("{")));
    expect(data).to.include({ code: "invalid_params", field: "limit" });
    expect(data.expected).to.be.a("string");
  });

  it("turns a domain failure into an isError result (calculate: calculation_error with the position)", async () => {
    const a = await server.rpc(call(5, "calculate", { expression: "2 * (3 +" }), user.token);
    const r = a.body.result;
    expect(r.isError).to.equal(true);
    const text: string = r.content[0].text;
    const data = JSON.parse(text.slice(text.indexOf("{")));
    expect(data.code).to.equal("calculation_error");
    expect(data.position).to.be.a("number");
  });

  it("answers an unknown tool with JSON-RPC -32602, not a tool result", async () => {
    const a = await server.rpc(call(6, "transfer_everything", {}), user.token);
    expect(a.body.error.code).to.equal(-32602);
    expect(a.body.error.data.code).to.equal("unknown_tool");
    expect(a.body.error.message).to.contain("transfer_everything");
  });

  it("refuses malformed tools/call params with JSON-RPC -32602", async () => {
    for (const params of [{}, { name: 42 }, { name: "whoami", arguments: [1] }, { name: "whoami", arguments: "x" }]) {
      const a = await server.rpc({ jsonrpc: "2.0", id: 7, method: "tools/call", params }, user.token);
      expect(a.body.error?.code, JSON.stringify(params)).to.equal(-32602);
    }
  });

  it("answers a static token's missing scope with a tool error the model can act on (not a 403 step-up it cannot do)", async () => {
    const token = await user.tokenWith(["read:wallets"]);
    const a = await server.rpc(call(8, "whoami", {}), token);
    expect(a.status).to.equal(200);
    expect(a.headers.get("www-authenticate")).to.equal(null);
    expect(a.body.result.isError).to.equal(true);
    const text: string = a.body.result.content[0].text;
    expect(text)
      .to.include("lacks the scope meta:whoami")
      .and.include("finance-mcp token create")
      .and.include('"code":"insufficient_scope"')
      .and.include('"scope":"meta:whoami"');
    // A direct JSON-RPC call keeps the 403 and its challenge.
    const direct = await server.rpc({ jsonrpc: "2.0", id: 9, method: "whoami" }, token);
    expect(direct.status).to.equal(403);
    expect(direct.headers.get("www-authenticate"))
      .to.match(/error="insufficient_scope"/)
      .and.match(/scope="meta:whoami"/);
  });

  it("answers an invalid token with 401, not a tool result", async () => {
    const a = await server.rpc(call(9, "whoami", {}), "fmcp_invalid");
    expect(a.status).to.equal(401);
    expect(a.body.error.data.code).to.equal("unauthorized");
  });

  describe("with WRITE_TOOLS=disabled", () => {
    let locked: TestServer;
    let u: TestUser;
    before(async () => {
      locked = await startTestServer({ WRITE_TOOLS: "disabled" });
      u = await locked.createUser();
    });
    after(async () => locked.close());

    it("hides every write tool from tools/list", async () => {
      const a = await locked.rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, u.token);
      expect(a.body.result.tools.map((t: any) => t.name)).to.deep.equal(tools.filter((t) => t.kind === "read").map((t) => t.name));
    });

    it("answers a write tool call with an isError result saying writes are disabled", async () => {
      const a = await locked.rpc(call(2, "create_wallet", { name: "x" }), u.token);
      const r = a.body.result;
      expect(r.isError).to.equal(true);
      expect(r.content[0].text).to.contain("writes_disabled");
    });
  });

  describe("rate limit", () => {
    let limited: TestServer;
    let u: TestUser;
    before(async () => {
      limited = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "3" });
      u = await limited.createUser();
    });
    after(async () => limited.close());

    it("counts every MCP message and answers 429 with Retry-After and a JSON-RPC error", async () => {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await limited.rpc(i % 2 ? { jsonrpc: "2.0", id: i, method: "tools/list" } : call(i, "whoami", {}), u.token);
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
      expect(Number(last!.headers.get("retry-after"))).to.be.greaterThan(0);
      expect(last!.headers.get("ratelimit-policy")).to.be.a("string");
      expect(last!.body.error.data.code).to.equal("rate_limited");
      expect(last!.body.error.data.retry_after_seconds).to.be.a("number");
    });
  });
});
