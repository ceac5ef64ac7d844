/**
 * The lifecycle methods: initialize (legacy revisions), ping (legacy), server/discover (2026-07-28).
 * The server is stateless: initialize negotiates a version and describes the server, and nothing is
 * remembered; every later request stands on its own headers.
 */
import { readFileSync } from "node:fs";
import { packagePath } from "../package-root.js";
import { instructions } from "../../generated/registry.js";
import { INVALID_PARAMS, protocolError } from "../rpc/protocol-error.js";
import { META_SERVER_INFO, SUPPORTED_VERSIONS, SSE_TRANSPORT_VERSION, negotiateVersion, type Transport } from "./revisions.js";

const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string };

export const SERVER_INFO = Object.freeze({ name: "finance-mcp", title: "Personal finance", version: pkg.version });

/**
 * No server→client notifications about the lists: tools, resources and prompts change only with the
 * token and the config (and the shipped knowledge base), and nothing is subscribable.
 */
export const CAPABILITIES = Object.freeze({
  tools: Object.freeze({ listChanged: false }),
  resources: Object.freeze({ subscribe: false, listChanged: false }),
  prompts: Object.freeze({ listChanged: false }),
  completions: Object.freeze({}),
});

/** The conventions every tool shares, stated once: generated from openrpc.json info["x-instructions"]. */
export const INSTRUCTIONS = instructions;

export function initializeResult(params: unknown, transport: Transport): Record<string, unknown> {
  const p = params !== null && typeof params === "object" && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
  if (!p || typeof p.protocolVersion !== "string") {
    throw protocolError(INVALID_PARAMS, 'initialize: params.protocolVersion: expected the protocol version the client speaks, e.g. "2025-11-25".', {
      field: "protocolVersion",
      expected: "a protocol version string",
    });
  }
  return {
    protocolVersion: negotiateVersion(p.protocolVersion, transport),
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  };
}

export function discoverResult(transport: Transport): Record<string, unknown> {
  return {
    supportedVersions: transport === "sse" ? [...SUPPORTED_VERSIONS, SSE_TRANSPORT_VERSION] : SUPPORTED_VERSIONS,
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    _meta: { [META_SERVER_INFO]: SERVER_INFO },
  };
}
