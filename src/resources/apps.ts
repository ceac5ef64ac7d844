/**
 * The MCP Apps as resources (io.modelcontextprotocol/ui, 2026-01-26): one ui:// resource per app, an
 * HTML5 document with its script and style inline (generated/apps.ts), served as
 * `text/html;profile=mcp-app`. Its _meta declares the strictest CSP the spec knows: no origin at all to
 * connect to, load from, frame or use as base (empty lists; the host adds nothing undeclared), so the
 * only way out of the app is the host's postMessage bridge. The documents are built once.
 */
import { apps, appScript, appStyle, type AppEntry } from "../../generated/apps.js";

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

/** What resources/list shows of each app. */
export function listAppResources(): { uri: string; name: string; title: string; description: string; mimeType: string; _meta: typeof APP_RESOURCE_META }[] {
  return apps.map((a) => ({ uri: a.uri, name: a.view, title: a.title, description: a.description, mimeType: APP_MIME_TYPE, _meta: APP_RESOURCE_META }));
}

/** resources/read's contents for an app's URI, or undefined when the URI names no app. */
export function readAppResource(uri: string): { uri: string; mimeType: string; text: string; _meta: typeof APP_RESOURCE_META }[] | undefined {
  const text = documents.get(uri);
  return text === undefined ? undefined : [{ uri, mimeType: APP_MIME_TYPE, text, _meta: APP_RESOURCE_META }];
}
