/**
 * generated/apps.ts: the MCP Apps (openrpc.json x-apps, apps/catalog.ts) with the bundled script and
 * style sheet every app document inlines (apps/build.ts). One script for the four apps keeps the
 * generated file to one copy of the ext-apps SDK; src/resources/apps.ts builds each document from it.
 */
import { fileURLToPath } from "node:url";
import { bundleApps } from "../apps/build.js";
import { catalog } from "../apps/catalog.js";
import type { Spec } from "./load.js";

const PREFIX = "ui://finance-mcp/";
/** The apps' sources are code beside codegen, like codegen itself; `--root` only moves the spec and generated/. */
const CODE_ROOT = fileURLToPath(new URL("..", import.meta.url));

export async function emitApps(spec: Spec, banner: string): Promise<string> {
  const views = new Map<string, string[]>();
  for (const [tool, uri] of Object.entries(spec.apps)) {
    const view = uri.slice(PREFIX.length);
    if (!(view in catalog)) throw new Error(`openrpc.json x-apps: ${tool} names ${uri}, which apps/catalog.ts does not have`);
    views.set(view, [...(views.get(view) ?? []), tool]);
  }
  for (const view of Object.keys(catalog)) if (!views.has(view)) throw new Error(`apps/catalog.ts: ${view} is drawn for no tool of openrpc.json x-apps`);
  const apps = [...views].map(([view, tools]) => ({ uri: PREFIX + view, view, ...catalog[view as keyof typeof catalog], tools }));
  const { script, style } = await bundleApps(CODE_ROOT);
  return [
    banner,
    ``,
    `export interface AppEntry {`,
    `  readonly uri: string;`,
    `  /** The document's <body data-view>: which view the script draws. */`,
    `  readonly view: string;`,
    `  readonly title: string;`,
    `  readonly description: string;`,
    `  /** The tools whose results it draws. */`,
    `  readonly tools: readonly string[];`,
    `}`,
    ``,
    `/** The MCP Apps, in the order of openrpc.json x-apps. */`,
    `export const apps: readonly AppEntry[] = ${JSON.stringify(apps, null, 2)};`,
    ``,
    `/** apps/src bundled by esbuild (apps/build.ts), with @modelcontextprotocol/ext-apps. */`,
    `export const appScript = ${JSON.stringify(script)};`,
    ``,
    `export const appStyle = ${JSON.stringify(style)};`,
    ``,
  ].join("\n");
}
