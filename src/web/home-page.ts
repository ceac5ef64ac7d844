/**
 * GET / : the server introduces itself. A browser gets a short page (what this is, the MCP URL to paste
 * into a chatbot with one line per client, where to sign in and manage tokens, health), with the same
 * security headers as the other pages (src/web/security.ts). A JSON client (`Accept: application/json`)
 * gets a small index of the server's addresses instead. HEAD / answers 200 (express answers HEAD from GET).
 *
 * A browser that opens the MCP URL itself gets the 405 that the protocol asks for, with a short page
 * that points here instead of a JSON-RPC error.
 */
import express, { type Request, type Response, type Router } from "express";
import type { Config } from "../config.js";
import { hostAndOriginGuard } from "../http/guards.js";
import { AS_METADATA_PATH, MCP_PATH, MCP_READ_PATH, oauthUrls, PRM_PATH } from "../oauth/urls.js";
import { packagePath } from "../package-root.js";
import { readFileSync } from "node:fs";
import { escapeHtml, renderPage } from "./layout.js";
import { newNonce, pageHeaders } from "./security.js";

export const OPENRPC_DOC_PATH = "/api/v1/openrpc.json";

/**
 * How each client connects with nothing but the MCP URL: the table of README's "Connect your chatbot"
 * (test/web/home-page.test.ts holds the two to the same rows). `<MCP URL>` is replaced by the real one.
 */
export const CLIENT_LINES: { client: string; how: string }[] = [
  { client: "Claude.ai, Claude Desktop, Claude mobile", how: "Settings → Connectors → Add custom connector → the MCP URL → Connect" },
  { client: "ChatGPT", how: "Settings → Apps & Connectors (developer mode) → Create → the MCP URL, authentication OAuth" },
  { client: "Claude Code", how: "`claude mcp add --transport http finance <MCP URL>`, then `/mcp` to authenticate" },
  { client: "VS Code", how: '`.vscode/mcp.json`: `{"servers": {"finance": {"type": "http", "url": "<MCP URL>"}}}`' },
  { client: "Cursor", how: '`~/.cursor/mcp.json`: `{"mcpServers": {"finance": {"url": "<MCP URL>"}}}`' },
  { client: "Claude Desktop through `mcp-remote`", how: '`{"mcpServers": {"finance": {"command": "npx", "args": ["-y", "mcp-remote", "<MCP URL>"]}}}`' },
];

const VERSION = (JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }).version;

/** This server's origin as the request names it: PUBLIC_URL when set, else the (already allowed) Host. */
function originOf(config: Config, req: Request): string {
  if (config.publicUrl) return config.publicUrl;
  const host = req.headers.host ?? "";
  return /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `http://${host}` : `http://${config.host}:${config.port}`;
}

export interface HomeIndex {
  name: string;
  version: string;
  description: string;
  mcp_endpoint: string;
  /** The same server with read tools only, whatever the token's scopes (docs/decisions.md#read-only-endpoint). */
  mcp_read_endpoint: string;
  openrpc: string;
  oauth: { protected_resource_metadata: string; authorization_server_metadata: string } | null;
  account: string;
  health: { alive: string; ready: string };
}

export function homeIndex(config: Config, req: Request): HomeIndex {
  const origin = originOf(config, req);
  const urls = oauthUrls(config, req.headers);
  return {
    name: "finance-mcp",
    version: VERSION,
    description: "MCP server for one person's finance data: transactions, budgets, goals, wallets, bill reminders, help articles and exact arithmetic.",
    mcp_endpoint: urls?.resource ?? `${origin}${MCP_PATH}`,
    mcp_read_endpoint: urls?.readResource ?? `${origin}${MCP_READ_PATH}`,
    openrpc: `${origin}${OPENRPC_DOC_PATH}`,
    oauth: urls ? { protected_resource_metadata: urls.resourceMetadata, authorization_server_metadata: `${urls.issuer}${AS_METADATA_PATH}` } : null,
    account: `${origin}/account`,
    health: { alive: `${origin}/healthz`, ready: `${origin}/readyz` },
  };
}

/** Markdown code spans of the table (`x`) as <code>, the rest escaped. */
const cell = (text: string, url: string) =>
  text
    .split("`")
    .map((part, i) => (i % 2 ? `<code>${escapeHtml(part.replaceAll("<MCP URL>", url))}</code>` : escapeHtml(part)))
    .join("");

function homeBody(index: HomeIndex): string {
  const url = index.mcp_endpoint;
  const rows = CLIENT_LINES.map((c) => `<tr><th scope="row">${cell(c.client, url)}</th><td>${cell(c.how, url)}</td></tr>`).join("\n");
  return `<p>This is <strong>finance-mcp</strong> ${escapeHtml(index.version)}: a server that lets a chatbot work with your finances
(transactions, budgets, savings goals, wallets and bill reminders) through the Model Context Protocol (MCP), acting for you
with only the permissions you give it.</p>
<h2>Connect your chatbot</h2>
<p>Give your chatbot this MCP URL:</p>
<pre id="mcp-url">${escapeHtml(url)}</pre>
<div class="scroll"><table>
<thead><tr><th scope="col">client</th><th scope="col">how</th></tr></thead>
<tbody>
${rows}
</tbody>
</table></div>
<p>For a chatbot that must never change anything, give it the read-only URL instead: it can read and never write, whatever you allow it.</p>
<pre id="mcp-read-url">${escapeHtml(index.mcp_read_endpoint)}</pre>
<p>${index.oauth ? "Signing in and choosing what the chatbot may do happen on a consent page it opens for you." : "This server takes tokens only: create one on your account page and give it to the chatbot as <code>Authorization: Bearer …</code>."}</p>
<h2>Your account</h2>
<p><a href="/account">Sign in to manage your tokens and connected clients</a>: create a token for a client that takes a header, see what each may do, revoke it.</p>
<h2>For developers</h2>
<ul>
<li>The tools' contract: <a href="${OPENRPC_DOC_PATH}">OpenRPC document</a></li>
${index.oauth ? `<li>OAuth: <a href="${escapeHtml(PRM_PATH + MCP_PATH)}">protected resource metadata</a>, <a href="${AS_METADATA_PATH}">authorization server metadata</a></li>` : ""}
<li>Health: <a href="/healthz">/healthz</a> (alive), <a href="/readyz">/readyz</a> (ready to serve)</li>
</ul>`;
}

function sendHome(config: Config, req: Request, res: Response): void {
  const nonce = newNonce();
  pageHeaders(res, nonce);
  res.setHeader("Vary", "Accept");
  const index = homeIndex(config, req);
  if (req.accepts(["html", "json"]) === "json") {
    res.json(index);
    return;
  }
  res.type("html").send(renderPage({ title: "An MCP server for your finances", body: homeBody(index), nonce }));
}

export function homeRouter(deps: { config: Config }): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  router.get("/", guard, (req, res) => sendHome(deps.config, req, res));
  // A person who pastes the MCP URL into a browser: still the protocol's 405, but a page that says what to do.
  // `use` rather than `get`: a route would make Express answer OPTIONS on the MCP path itself (200 with an
  // Allow header) instead of leaving it to the MCP route's 405.
  router.use(MCP_PATH, (req, res, next) => {
    if (req.method !== "GET" || req.path !== "/") return next();
    if (req.accepts(["json", "text/event-stream", "html"]) !== "html" || !req.headers.accept?.includes("text/html")) return next();
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res.setHeader("Allow", "POST");
    res
      .status(405)
      .type("html")
      .send(
        renderPage({
          title: "This is an MCP endpoint",
          body: `<p>This address is for chatbots, not browsers: paste it into your chatbot's connector settings.</p><p><a href="/">How to connect a chatbot</a> · <a href="/account">Your account</a></p>`,
          nonce,
        }),
      );
  });
  return router;
}
