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
 * - the privacy page's address, as the same template, in the publisher-provided metadata.
 */
import type { JsonObject } from "./load.js";

export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/** The most the registry's schema allows in `description`. */
const DESCRIPTION_MAX = 100;

interface PackageJson {
  name: string;
  version: string;
  mcpName?: string;
}

export function emitServerJson(spec: JsonObject, pkg: PackageJson, paths: { mcp: string; privacy: string }): string {
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
      "io.modelcontextprotocol.registry/publisher-provided": { privacyPolicyUrl: `https://{host}${paths.privacy}` },
    },
  };
  return `${JSON.stringify(entry, null, 2)}\n`;
}
