/**
 * The scope matrix, generated from the registry (itself generated from openrpc.json): every tool called
 * with a token holding only its scope gets past authorization, and with a token holding every other
 * scope gets 403 insufficient_scope; list_capabilities and MCP tools/list show exactly the permitted
 * tools for each scope.
 */
import { expect } from "chai";
import { scopes, tools } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { exampleParams, LEGACY_MCP_VERSION, mcpToolNames, specMethods } from "./spec.js";

const permitted = (held: readonly string[]) => tools.filter((t) => held.includes(t.scope)).map((t) => t.name);

describe(`scope matrix (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server.close());

  it("covers every method of openrpc.json, each with one known scope whose kind matches its prefix", () => {
    expect(tools.map((t) => t.name)).to.deep.equal(specMethods.map((m) => m.name));
    for (const t of tools) {
      expect(scopes as readonly string[], t.name).to.include(t.scope);
      if (t.kind === "write") expect(t.scope, t.name).to.match(/^write:/);
      else expect(t.scope, t.name).to.match(/^(read|meta):/);
    }
  });

  for (const tool of tools) {
    describe(tool.name, () => {
      it(`with only ${tool.scope}: authorized (not 401/403)`, async () => {
        const token = await user.tokenWith([tool.scope]);
        const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: tool.name, params: exampleParams(tool.name) }, token);
        expect(answer.status, JSON.stringify(answer.body)).to.not.be.oneOf([401, 403]);
        if (answer.body.error) {
          expect(answer.body.error.data?.code, JSON.stringify(answer.body.error)).to.not.be.oneOf(["unauthorized", "insufficient_scope"]);
          expect(answer.body.error.code).to.not.equal(-32601);
        }
      });

      it(`with every scope but ${tool.scope}: 403 insufficient_scope naming it`, async () => {
        const token = await user.tokenWith(scopes.filter((s) => s !== tool.scope));
        const answer = await server.rpc({ jsonrpc: "2.0", id: 2, method: tool.name, params: exampleParams(tool.name) }, token);
        expect(answer.status).to.equal(403);
        expect(answer.headers.get("www-authenticate")).to.equal(
          `Bearer realm="finance-mcp", error="insufficient_scope", scope="${tool.scope}", resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/v1/mcp"`,
        );
        expect(answer.body.id).to.equal(2);
        expect(answer.body.error.code).to.equal(-32002);
        expect(answer.body.error.data).to.include({ code: "insufficient_scope", scope: tool.scope });
        expect(answer.body.error.message).to.include(tool.scope);
      });

      it(`over MCP tools/call: authorized with ${tool.scope}; without it, a static token gets a tool error naming it`, async function () {
        const call = (token: string, id: number) =>
          server.rpc({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool.name, arguments: exampleParams(tool.name) } }, token, {
            "mcp-protocol-version": LEGACY_MCP_VERSION,
          });
        const allowed = await call(await user.tokenWith([tool.scope]), 3);
        expect(allowed.status, JSON.stringify(allowed.body)).to.equal(200);
        if (allowed.body.result?.isError) expect(JSON.stringify(allowed.body.result)).not.to.match(/insufficient_scope|unauthorized/);
        // A static token cannot step up through OAuth: the model reads the refusal (OAuth tokens get the 403
        // challenge: test/oauth/sdk-flow.test.ts).
        const denied = await call(await user.tokenWith(scopes.filter((s) => s !== tool.scope)), 4);
        expect(denied.status).to.equal(200);
        expect(denied.body.result.isError).to.equal(true);
        expect(denied.body.result.content[0].text).to.include(`lacks the scope ${tool.scope}`).and.include('"code":"insufficient_scope"');
      });
    });
  }

  describe("what a token is shown", () => {
    const sets: string[][] = [["meta:whoami"], ...scopes.filter((s) => s !== "meta:whoami").map((s) => ["meta:whoami", s]), [...scopes]];

    for (const held of sets) {
      it(`list_capabilities with ${held.length === scopes.length ? "every scope" : held.join(" + ")}`, async () => {
        const token = await user.tokenWith(held);
        const result = await server.call("list_capabilities", {}, token);
        expect(result.tools.map((t: { name: string }) => t.name)).to.deep.equal(permitted(held));
        for (const t of result.tools) {
          const def = tools.find((d) => d.name === t.name)!;
          expect(t).to.deep.equal({ name: def.name, title: def.title, description: def.summary, scope: def.scope, kind: def.kind });
        }
        expect(result.writes_enabled).to.equal(true);
        expect(result.limits).to.include({ requests_per_minute: server.config.rateLimits.mcpPerMinute, idempotency_key_retention_hours: 24 });
        expect(result.limits.max_page_size).to.be.a("number");
        expect(result.limits.default_page_size).to.be.a("number");
      });

      it(`MCP tools/list with ${held.length === scopes.length ? "every scope" : held.join(" + ")}`, async function () {
        const token = await user.tokenWith(held);
        const names = await mcpToolNames(server, token);
        expect(names).to.deep.equal(permitted(held));
      });
    }

    it("a write scope is never implied by its read scope, nor the reverse", async () => {
      for (const area of ["transactions", "budgets", "goals", "wallets", "bills"]) {
        const readOnly = await user.tokenWith(["meta:whoami", `read:${area}`]);
        const writeOnly = await user.tokenWith(["meta:whoami", `write:${area}`]);
        const r = (await server.call("list_capabilities", {}, readOnly)).tools as Array<{ scope: string }>;
        const w = (await server.call("list_capabilities", {}, writeOnly)).tools as Array<{ scope: string }>;
        expect(r.some((t) => t.scope === `write:${area}`)).to.equal(false);
        expect(w.some((t) => t.scope === `read:${area}`)).to.equal(false);
      }
    });
  });
});
