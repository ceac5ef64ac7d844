/**
 * The servers finance-mcp is compared with, each written the way its README shows it:
 *
 *   echo        a bare express 5 app that parses the JSON body and sends it back: the ceiling of this
 *               web stack (express.json() + res.json(), nothing else).
 *   sdk-v1      @modelcontextprotocol/sdk 1.x, stateless Streamable HTTP (the SDK's
 *               simpleStatelessStreamableHttp example: createMcpExpressApp, a fresh McpServer and
 *               StreamableHTTPServerTransport({ sessionIdGenerator: undefined }) per request).
 *   sdk-v2      @modelcontextprotocol/server 2.x, createMcpHandler(factory) (docs/serving/http.md),
 *               served from express through a web Request built from the parsed body (what
 *               @modelcontextprotocol/node's toNodeHandler does; that package is not installed here).
 *               It answers both eras: 2025-era requests through its stateless legacy leg, 2026-07-28
 *               requests (params._meta + Mcp-Method/Mcp-Name headers) through the modern leg.
 *
 * Each SDK server has one trivial tool, `whoami`, that returns a short text. startBaseline() serves one
 * of them in the calling process; scripts/bench/baseline-server.ts runs it as its own process so that
 * it gets the same one-process conditions as the real server. baselineRequests() gives the JSON-RPC
 * body and headers that call each one. Shared by `npm run bench` and `npm run bench:protocol`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import * as z from "zod/v4";

export type BaselineKind = "echo" | "sdk-v1" | "sdk-v2";
export const BASELINE_KINDS: readonly BaselineKind[] = ["echo", "sdk-v1", "sdk-v2"];
export const BASELINE_PATH = "/mcp";

const WHOAMI_TEXT = JSON.stringify({ user_id: "usr_baseline", name: "baseline" });

function echoApp(): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.post(BASELINE_PATH, express.json(), (req, res) => {
    res.json(req.body);
  });
  return app;
}

async function sdkV1App(): Promise<express.Express> {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { createMcpExpressApp } = await import("@modelcontextprotocol/sdk/server/express.js");
  const getServer = () => {
    const server = new McpServer({ name: "baseline-sdk-v1", version: "1.0.0" });
    server.registerTool("whoami", { description: "Who is calling", inputSchema: {} }, async () => ({ content: [{ type: "text", text: WHOAMI_TEXT }] }));
    return server;
  };
  const app = createMcpExpressApp();
  app.post(BASELINE_PATH, async (req, res) => {
    const server = getServer();
    try {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
    } catch {
      if (!res.headersSent) res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
    }
  });
  return app;
}

async function sdkV2App(): Promise<express.Express> {
  const { createMcpHandler, McpServer } = await import("@modelcontextprotocol/server");
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "baseline-sdk-v2", version: "1.0.0" });
    server.registerTool("whoami", { description: "Who is calling", inputSchema: z.object({}) }, async () => ({
      content: [{ type: "text", text: WHOAMI_TEXT }],
    }));
    return server;
  });
  const app = express();
  app.disable("x-powered-by");
  app.post(BASELINE_PATH, express.json(), async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const body = JSON.stringify(req.body);
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.originalUrl}`, { method: "POST", headers, body });
    const response = await handler.fetch(request, { parsedBody: req.body });
    res.status(response.status);
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  return app;
}

export interface RunningBaseline {
  kind: BaselineKind;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export async function startBaseline(kind: BaselineKind, port = 0, host = "127.0.0.1"): Promise<RunningBaseline> {
  const app = kind === "echo" ? echoApp() : kind === "sdk-v1" ? await sdkV1App() : await sdkV2App();
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    kind,
    port: (server.address() as AddressInfo).port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface BaselineRequest {
  /** A label for tables: which server and which protocol era. */
  label: string;
  kind: BaselineKind;
  headers: Record<string, string>;
  body: string;
  /** True when a 2xx body is the expected answer (the echo of the body, or a tool result). */
  verify(body: string): boolean;
}

const isToolResult = (body: string) => body.includes('"result":') && !body.includes('"error":{') && !body.includes('"isError":true');

const COMMON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * The requests each baseline is measured with: the echo gets the same direct call body finance-mcp
 * gets for whoami; the SDK servers get `tools/call whoami`, v2 once per era.
 */
export function baselineRequests(): BaselineRequest[] {
  const echoBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami", params: {} });
  const legacyCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
  const modernCall = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "whoami",
      arguments: {},
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
      },
    },
  });
  return [
    {
      label: "express JSON echo",
      kind: "echo",
      headers: { ...COMMON_HEADERS },
      body: echoBody,
      verify: (body) => body === echoBody,
    },
    {
      label: "SDK v1 stateless, tools/call 2025-11-25",
      kind: "sdk-v1",
      headers: { ...COMMON_HEADERS, "mcp-protocol-version": "2025-11-25" },
      body: legacyCall,
      verify: isToolResult,
    },
    {
      label: "SDK v2 createMcpHandler, 2025-11-25",
      kind: "sdk-v2",
      headers: { ...COMMON_HEADERS, "mcp-protocol-version": "2025-11-25" },
      body: legacyCall,
      verify: isToolResult,
    },
    {
      label: "SDK v2 createMcpHandler, 2026-07-28",
      kind: "sdk-v2",
      headers: { ...COMMON_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "whoami" },
      body: modernCall,
      verify: isToolResult,
    },
  ];
}
