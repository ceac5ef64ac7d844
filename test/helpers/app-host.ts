/**
 * A host for the MCP Apps in real Chromium (playwright-core, Debian's chromium): the official SDK v2
 * client (Node) lists the tools, reads each app's ui:// resource and calls the tools; the page
 * (apps/test-host/host.ts, bundled here by esbuild) runs the ext-apps SDK's AppBridge, a sandbox proxy
 * on a second origin served with the CSP the spec builds from the resource's _meta.ui.csp, and the app
 * inside it. A tool the app calls through the host reaches the same client (window.hostCallTool).
 * Used by test/apps/apps.test.ts and scripts/screenshots.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Frame, Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { TestServer } from "./server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Csp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The CSP a host builds from _meta.ui.csp (ext-apps specification 2026-01-26, "Content Security Policy Enforcement"). */
export function cspHeader(csp: Csp): string {
  const res = (csp.resourceDomains ?? []).join(" ");
  return [
    `default-src 'none'`,
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `connect-src 'self' ${(csp.connectDomains ?? []).join(" ")}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `frame-src ${(csp.frameDomains ?? []).join(" ") || "'none'"}`,
    `object-src 'none'`,
    `base-uri ${(csp.baseUriDomains ?? []).join(" ") || "'self'"}`,
  ]
    .map((d) => d.trim())
    .join("; ");
}

async function bundle(file: string): Promise<string> {
  const out = await build({
    entryPoints: [join(ROOT, "apps/test-host", file)],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
    tsconfig: join(ROOT, "apps/tsconfig.json"),
  });
  return out.outputFiles[0]!.text.replace(/<\/(script)/gi, "<\\/$1");
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface AppHost {
  /** The host page's origin (also a second origin for the CSP test: it answers /ping to anyone). */
  hostUrl: string;
  sandboxUrl: string;
  /** The MCP client the host uses (official SDK v2, 2026-07-28, declaring the Apps extension). */
  client: Client;
  /** Every tools/call the apps made through the host, in order. */
  appCalls: { name: string; arguments: Record<string, unknown> }[];
  /** Opens an app for a tool call as a host does: tools/list → _meta.ui.resourceUri → resources/read → tools/call → the bridge. */
  open(
    page: Page,
    tool: string,
    args: Record<string, unknown>,
    theme?: "light" | "dark",
  ): Promise<{ frame: Frame; result: Record<string, unknown>; resource: { uri: string; mimeType?: string; text: string; _meta?: any } }>;
  close(): Promise<void>;
}

export async function startAppHost(server: TestServer, token: string): Promise<AppHost> {
  const [hostJs, sandboxJs] = await Promise.all([bundle("host.ts"), bundle("sandbox.ts")]);
  const hostPage = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><style>
html,body{margin:0;background:#f6f7f9}html[data-theme=dark],html[data-theme=dark] body{background:#111214}
#slot{padding:12px}iframe{border:0;width:100%;height:120px;display:block;border-radius:10px;background:transparent}
</style></head><body><div id="slot"></div><script>${hostJs}</script></body></html>`;
  const sandboxPage = `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style></head><body><script>${sandboxJs}</script></body></html>`;

  const handler = (sandbox: boolean) =>
    createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/ping") {
        res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("pong");
      } else if (!sandbox && url.pathname === "/host.html") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(hostPage);
      } else if (sandbox && url.pathname === "/sandbox.html") {
        const csp = JSON.parse(url.searchParams.get("csp") ?? "{}") as Csp;
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": cspHeader(csp) }).end(sandboxPage);
      } else res.writeHead(404).end();
    });
  const hostServer = handler(false);
  const sandboxServer = handler(true);
  const [hostUrl, sandboxOrigin] = await Promise.all([listen(hostServer), listen(sandboxServer)]);

  const client = new Client({ name: "finance-mcp app host", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
  } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const appCalls: AppHost["appCalls"] = [];
  const bound = new WeakSet<Page>();

  return {
    hostUrl,
    sandboxUrl: `${sandboxOrigin}/sandbox.html`,
    client,
    appCalls,
    async open(page, tool, args, theme = "light") {
      if (!bound.has(page)) {
        bound.add(page);
        await page.exposeFunction("hostCallTool", async (params: { name: string; arguments?: Record<string, unknown> }) => {
          appCalls.push({ name: params.name, arguments: params.arguments ?? {} });
          return client.callTool({ name: params.name, arguments: params.arguments ?? {} });
        });
      }
      const listed = (await client.listTools()).tools.find((t) => t.name === tool);
      const uri = (listed?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
      if (!uri) throw new Error(`${tool} names no app in tools/list`);
      const resource = (await client.readResource({ uri })).contents[0] as { uri: string; mimeType?: string; text: string; _meta?: any };
      const result = (await client.callTool({ name: tool, arguments: args })) as Record<string, unknown>;
      await page.goto(`${hostUrl}/host.html`);
      await page.evaluate((o) => (globalThis as unknown as { mountApp(o: unknown): Promise<void> }).mountApp(o), {
        html: resource.text,
        csp: resource._meta?.ui?.csp,
        sandboxUrl: `${sandboxOrigin}/sandbox.html`,
        toolArguments: args,
        toolResult: result,
        theme,
      });
      let frame: Frame | undefined;
      for (let i = 0; i < 200 && !frame; i++) {
        frame = page.frames().find((f) => f.url() === "about:srcdoc");
        if (!frame) await page.waitForTimeout(25);
      }
      if (!frame) throw new Error("the app's frame never appeared");
      return { frame, result, resource };
    },
    async close() {
      await client.close();
      hostServer.closeAllConnections();
      sandboxServer.closeAllConnections();
      await Promise.all([new Promise((r) => hostServer.close(r)), new Promise((r) => sandboxServer.close(r))]);
    },
  };
}
