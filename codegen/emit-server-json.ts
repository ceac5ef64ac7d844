/**
 * server.json, the entry of the official MCP registry (schema 2025-12-11, kept beside this file as
 * codegen/listing/server.schema.2025-12-11.json and checked by test/contract/listing.test.ts), generated
 * from openrpc.json and package.json so that it cannot drift from either:
 * - name: package.json `mcpName` (the registry checks an npm package's `mcpName` against it);
 * - description: openrpc.json `info.x-listing.description` (the registry allows 100 characters);
 * - version: package.json `version`, for the entry and its npm package;
 * - remotes: the MCP URL of a deployment, a template whose `host` the person fills in (each person runs
 *   their own server: there is no one public address);
 * - packages: the npm package, started with `serve`, answering streamable HTTP on its PORT;
 * - repository and websiteUrl: package.json `repository`, the source a reader (and the registry's
 *   namespace check for io.github.<owner>/…) can open;
 * - the privacy policy's address: PRIVACY.md in that repository (the shipped text of /privacy, written
 *   by codegen), a page anyone can open; the schema defines template variables only for the transports'
 *   URLs, so `https://{host}/privacy` here was an address no reader could open (issue 52).
 */
import type { JsonObject } from "./load.js";

export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/** The most the registry's schema allows in `description`. */
const DESCRIPTION_MAX = 100;

interface PackageJson {
  name: string;
  version: string;
  mcpName?: string;
  repository?: { type?: string; url?: string } | string;
}

/** package.json `repository` as the https address of the repository (git+https://…/x.git → https://…/x). */
export function repositoryUrl(pkg: PackageJson): string {
  const raw = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
  const url = raw?.replace(/^git\+/, "").replace(/\.git$/, "");
  if (!url?.startsWith("https://github.com/"))
    throw new Error("package.json has no https://github.com/<owner>/<name> repository: the registry entry links the source");
  return url;
}

/** Where the published privacy text is read: PRIVACY.md on the repository's main branch. */
export const privacyPolicyUrl = (pkg: PackageJson) => `${repositoryUrl(pkg)}/blob/main/PRIVACY.md`;

export function emitServerJson(spec: JsonObject, pkg: PackageJson, paths: { mcp: string }): string {
  const info = spec.info as JsonObject;
  const listing = (info["x-listing"] ?? {}) as JsonObject;
  const description = listing.description;
  if (typeof description !== "string" || description.length === 0 || description.length > DESCRIPTION_MAX) {
    throw new Error(`openrpc.json info.x-listing.description must be 1 to ${DESCRIPTION_MAX} characters (the MCP registry's limit)`);
  }
  if (!pkg.mcpName) throw new Error("package.json has no mcpName: the MCP registry names the server by it");
  const host = { description: "The host name of your finance-mcp server, as in its PUBLIC_URL", isRequired: true, placeholder: "finance.example.com" };
  const entry = {
    $schema: SERVER_SCHEMA_URL,
    name: pkg.mcpName,
    title: info.title,
    description,
    version: pkg.version,
    repository: { url: repositoryUrl(pkg), source: "github" },
    websiteUrl: repositoryUrl(pkg),
    remotes: [{ type: "streamable-http", url: `https://{host}${paths.mcp}`, variables: { host } }],
    packages: [
      {
        registryType: "npm",
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: "npx",
        packageArguments: [{ type: "positional", value: "serve" }],
        environmentVariables: [
          { name: "PORT", description: "The port the server listens on", default: "8080" },
          { name: "DATABASE_URL", description: "sqlite:<path> or a postgres:// URL; unset: sqlite:data/finance.sqlite in the working folder" },
        ],
        transport: { type: "streamable-http", url: `http://localhost:{PORT}${paths.mcp}` },
      },
    ],
    _meta: {
      "io.modelcontextprotocol.registry/publisher-provided": { privacyPolicyUrl: privacyPolicyUrl(pkg) },
    },
  };
  return `${JSON.stringify(entry, null, 2)}\n`;
}
