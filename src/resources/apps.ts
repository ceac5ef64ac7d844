/**
 * The MCP Apps as resources (io.modelcontextprotocol/ui, 2026-01-26): one ui:// resource per app, an
 * HTML5 document with its script and style inline (generated/apps.ts), served as
 * `text/html;profile=mcp-app`. Its _meta declares the strictest CSP the spec knows: no origin at all to
 * connect to, load from, frame or use as base (empty lists; the host adds nothing undeclared), so the
 * only way out of the app is the host's postMessage bridge. The documents are built once.
 * Listed in resources/list too (the spec allows leaving them out), so a host can prefetch and review them.
 */
import { apps, appScript, appStyle, type AppEntry } from "../../generated/apps.js";
import { toolsByName } from "../../generated/registry.js";
import { toolAvailable } from "../auth/tool-access.js";
import { resourceNotFound } from "./errors.js";
import type { ResourceContext, ResourceProvider } from "./types.js";

const UI_PREFIX = "ui://";
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** Resource _meta.ui for every app: no external origin of any kind; the host draws the border. */
export const APP_RESOURCE_META = Object.freeze({
  ui: Object.freeze({
    csp: Object.freeze({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }),
    prefersBorder: true,
  }),
});

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** An inline script may not contain "</script" (it would end the element early); "<\/script" means the same in JS. */
const inlineScript = (js: string) => js.replace(/<\/(script)/gi, "<\\/$1");

function documentOf(app: AppEntry): string {
  return [
    `<!doctype html>`,
    `<html lang="en">`,
    `<head>`,
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(app.title)}</title>`,
    `<style>${appStyle.replace(/<\/(style)/gi, "<\\/$1")}</style>`,
    `</head>`,
    `<body data-view="${escapeHtml(app.view)}">`,
    `<main id="app" aria-live="polite"></main>`,
    `<script type="module">${inlineScript(appScript)}</script>`,
    `</body>`,
    `</html>`,
  ].join("\n");
}

const documents = new Map(apps.map((a) => [a.uri, documentOf(a)]));

/** An app is for this token when it may use one of the tools the app draws (as tools/list shows them). */
function usable(app: AppEntry, ctx: ResourceContext): boolean {
  return app.tools.some((name) => {
    const tool = toolsByName.get(name);
    return tool !== undefined && toolAvailable(tool, ctx.caller.scopes, ctx.config);
  });
}

/**
 * The ui:// provider. An app is listed and readable for a token that may use one of its tools, like
 * the tool itself; the document holds no data (the tool's result reaches it through the host).
 */
export const uiApps: ResourceProvider = {
  name: "MCP Apps",
  // The documents change only with a new build of the server and hold no one's data.
  readCache: { ttlMs: 3_600_000, cacheScope: "public" },
  owns: (uri) => uri.startsWith(UI_PREFIX),
  list: (ctx) =>
    Promise.resolve(
      apps
        .filter((a) => usable(a, ctx))
        .map((a) => ({
          uri: a.uri,
          name: a.view,
          title: a.title,
          description: a.description,
          mimeType: APP_MIME_TYPE,
          size: Buffer.byteLength(documents.get(a.uri)!),
          _meta: APP_RESOURCE_META,
        })),
    ),
  read(ctx, uri) {
    const app = apps.find((a) => a.uri === uri);
    if (!app || !usable(app, ctx)) throw resourceNotFound(uri);
    return Promise.resolve([{ uri, mimeType: APP_MIME_TYPE, text: documents.get(uri)!, _meta: APP_RESOURCE_META }]);
  },
};
