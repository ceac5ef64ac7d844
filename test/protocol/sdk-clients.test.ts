/**
 * Clients we did not write: the official TypeScript SDK 1.x client over Streamable HTTP and over the
 * HTTP+SSE transport, and the SDK v2 client negotiating 2026-07-28. Each lists the tools and calls every
 * read tool of the registry with its first example from openrpc.json; the SDK validates
 * structuredContent against the listed outputSchema. The user first gets a wallet, a transaction, a
 * budget, a goal and a bill reminder through the write tools (their spec examples), and the examples'
 * placeholder ids (wal_example…) are replaced by the real ones, so every read tool has something to read.
 * A tool that answers not_implemented fails.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from "@modelcontextprotocol/client";
import { tools } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { publishChange } from "./helpers.js";
import { modelText } from "../../src/mcp/model-text.js";

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8")) as {
  methods: { name: string; examples?: { params: { name: string; value: unknown }[] }[] }[];
};
const exampleArgs = new Map(spec.methods.map((m) => [m.name, Object.fromEntries((m.examples?.[0]?.params ?? []).map((p) => [p.name, p.value]))]));
const PLACEHOLDER = /^(wal|bud|gol|txn|bil)_example\d+$/;
/** Real ids by prefix, filled by seed(); placeholders without a real id stay (and may answer not_found). */
const realIds = new Map<string, string>();
const withRealIds = (args: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "string" && PLACEHOLDER.test(v) ? (realIds.get(v.slice(0, 3)) ?? v) : v]));
const readTools = tools.filter((t) => t.kind === "read").map((t) => t.name);
/** Implemented today; the test fails if any of these stops succeeding. */
const MUST_SUCCEED = ["whoami", "list_capabilities", "calculate", "search_product_knowledge"];

interface ToolCaller {
  listTools(): Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<any>;
}

function errorCode(result: any): string | undefined {
  if (!result.isError) return undefined;
  const text: string = result.content?.[0]?.text ?? "";
  try {
    return JSON.parse(text.slice(text.indexOf("{"))).code;
  } catch {
    return undefined;
  }
}

/** Creates one resource of each kind through the write tools (direct calls), recording their ids. */
async function seed(server: TestServer, token: string): Promise<void> {
  const creates: [string, string, string][] = [
    ["create_wallet", "wallet", "wal"],
    ["create_transaction", "transaction", "txn"],
    ["create_budget", "budget", "bud"],
    ["create_goal", "goal", "gol"],
    ["create_bill_reminder", "bill_reminder", "bil"],
  ];
  for (const [tool, key, prefix] of creates) {
    const params = { ...withRealIds(exampleArgs.get(tool) ?? {}), idempotency_key: randomUUID() };
    const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: tool, params }, token);
    expect(answer.body.error, `${tool} with its spec example`).to.equal(undefined);
    realIds.set(prefix, answer.body.result[key].id);
  }
}

/**
 * A forecast's what-if events must lie after today: the spec's example is dated after the example world's
 * day (2026-03-15), and this server runs on the real clock, so they are moved to ten days from now.
 */
function futureWhatIfs(args: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(args.what_if)) return args;
  const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  return { ...args, what_if: (args.what_if as Record<string, unknown>[]).map((e) => ({ ...e, date: day })) };
}

/** Calls every read tool; returns the names that succeeded. */
async function callEveryReadTool(client: ToolCaller, userId: string): Promise<string[]> {
  const listed = (await client.listTools()).tools; // caches the output validators
  expect(listed.map((t) => t.name)).to.deep.equal(tools.map((t) => t.name));
  const succeeded: string[] = [];
  const problems: string[] = [];
  for (const name of readTools) {
    const args = futureWhatIfs(withRealIds(exampleArgs.get(name) ?? {}));
    const result = await client.callTool({ name, arguments: args });
    const code = errorCode(result);
    if (!result.isError) {
      expect(result.structuredContent, name).to.be.an("object");
      // The text is the model's form of the data, then the line naming an app view where the tool has one.
      expect(result.content[0].text.split("\n\nApp view: ")[0], name).to.equal(modelText(result.structuredContent));
      succeeded.push(name);
    } else if (!(code === "not_found" && Object.values(args).some((v) => typeof v === "string" && PLACEHOLDER.test(v)))) {
      problems.push(`${name}: ${result.content?.[0]?.text}`);
    }
  }
  expect(problems, "read tools failing with their spec example").to.deep.equal([]);
  expect(succeeded).to.include.members(MUST_SUCCEED);
  expect(succeeded.length, `succeeded: ${succeeded.join(", ")}`).to.be.at.least(readTools.length);
  const who = await client.callTool({ name: "whoami", arguments: {} });
  expect(who.structuredContent.user_id).to.equal(userId);
  return succeeded;
}

describe(`protocol: official SDK clients (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  let headers: Record<string, string>;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" });
    user = await server.createUser();
    headers = { Authorization: `Bearer ${user.token}` };
    await seed(server, user.token);
  });
  after(async () => server.close());

  it("SDK 1.x over Streamable HTTP: connects (2025-11-25), lists tools, calls every implemented read tool", async () => {
    const client = new Client({ name: "finance-mcp-test", version: "0.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers } });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).to.equal("2025-11-25");
      // The session where the client's capabilities are kept (docs/decisions.md#capabilities-per-session).
      expect(transport.sessionId).to.be.a("string");
      expect(client.getServerVersion()?.name).to.equal("finance-mcp");
      expect(client.getServerCapabilities()?.tools).to.deep.equal({ listChanged: false });
      expect(client.getInstructions()).to.be.a("string");
      await client.ping();
      await callEveryReadTool(client as unknown as ToolCaller, user.id);
    } finally {
      await client.close();
    }
  });

  it("SDK 1.x: an unknown tool is an McpError -32602, a bad token a 401", async () => {
    const client = new Client({ name: "finance-mcp-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers } }));
    try {
      await client.callTool({ name: "no_such_tool", arguments: {} }).then(
        () => expect.fail("unknown tool succeeded"),
        (err: { code?: number }) => expect(err.code).to.equal(-32602),
      );
    } finally {
      await client.close();
    }
    const bad = new Client({ name: "finance-mcp-test", version: "0.0.0" });
    await bad.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: "Bearer fmcp_wrong" } } })).then(
      () => expect.fail("connected with a bad token"),
      (err: { code?: number }) => expect(err.code).to.equal(401),
    );
  });

  it("SDK 1.x over the HTTP+SSE transport: lists tools, calls every implemented read tool, receives change events", async () => {
    const client = new Client({ name: "finance-mcp-test", version: "0.0.0" });
    const transport = new SSEClientTransport(new URL(`${server.url}/api/v1/mcp/sse`), {
      requestInit: { headers },
      eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
    });
    const changes: any[] = [];
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === "notifications/finance/changed") changes.push(n.params);
    };
    await client.connect(transport);
    try {
      await callEveryReadTool(client as unknown as ToolCaller, user.id);
      const entry = await publishChange(server, user.id);
      const deadline = Date.now() + 5000;
      while (!changes.some((c) => c.audit_id === entry.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(changes.find((c) => c.audit_id === entry.id)).to.deep.include({ tool: entry.tool, resource_id: entry.resource_id, action: "create" });
    } finally {
      await client.close();
    }
  });

  for (const mode of [{ pin: "2026-07-28" }, "auto"] as const) {
    it(`SDK v2 client (${JSON.stringify(mode)}) negotiates 2026-07-28 and calls every implemented read tool`, async () => {
      const client = new ClientV2({ name: "finance-mcp-test", version: "0.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransportV2(new URL(server.mcpUrl), { requestInit: { headers } }));
      try {
        expect(client.getProtocolEra()).to.equal("modern");
        expect(client.getNegotiatedProtocolVersion()).to.equal("2026-07-28");
        expect(client.getServerVersion()?.name).to.equal("finance-mcp");
        expect(client.getDiscoverResult()?.supportedVersions).to.include("2026-07-28");
        await callEveryReadTool(client as unknown as ToolCaller, user.id);
      } finally {
        await client.close();
      }
    });
  }

  it("SDK v2 client in its default legacy mode still works (initialize, 2025-11-25)", async () => {
    const client = new ClientV2({ name: "finance-mcp-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransportV2(new URL(server.mcpUrl), { requestInit: { headers } }));
    try {
      expect(client.getProtocolEra()).to.equal("legacy");
      expect(client.getNegotiatedProtocolVersion()).to.equal("2025-11-25");
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect((who.structuredContent as any).user_id).to.equal(user.id);
    } finally {
      await client.close();
    }
  });
});
