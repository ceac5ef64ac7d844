/**
 * MCP protocol revisions and how a message says which one it speaks.
 *
 * Legacy revisions (2025-11-25, 2025-06-18, 2025-03-26) negotiate once with `initialize`; afterwards the
 * client sends the negotiated version in the MCP-Protocol-Version header (absent = 2025-03-26). The server
 * is stateless, so it never compares the header with what was negotiated: it only refuses versions it
 * does not speak.
 *
 * The modern revision (2026-07-28) has no handshake: every request carries its version in
 * params._meta["io.modelcontextprotocol/protocolVersion"], mirrored in MCP-Protocol-Version, with the
 * method in Mcp-Method and, for tools/call, the tool name in Mcp-Name. Headers and body must agree.
 *
 * 2024-11-05 is the revision of the HTTP+SSE transport (GET /api/v1/mcp/sse); it is accepted only there.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { JsonRpcRequest } from "../rpc/message.js";
import { INVALID_PARAMS, ProtocolError, protocolError } from "../rpc/protocol-error.js";

export const MODERN_VERSION = "2026-07-28";
export const LATEST_LEGACY_VERSION = "2025-11-25";
/** Initialize-based revisions on Streamable HTTP, newest first. */
export const LEGACY_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/** The HTTP+SSE transport's own revision. */
export const SSE_TRANSPORT_VERSION = "2024-11-05";
/** Every version this server speaks on Streamable HTTP, newest first (what -32022 and server/discover list). */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...LEGACY_VERSIONS];
/** Assumed when a legacy request carries no MCP-Protocol-Version header (spec: 2025-03-26). */
export const DEFAULT_HEADER_VERSION = "2025-03-26";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** 2026-07-28 error codes (basic/index.mdx#error-codes). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export type Transport = "streamable-http" | "sse";

export interface Revision {
  /** "modern" = 2026-07-28 per-request metadata; "legacy" = initialize-based. */
  era: "modern" | "legacy";
  /** The version the request declares (header, or _meta for modern requests). */
  version: string;
  transport: Transport;
}

const LEGACY_SET: ReadonlySet<string> = new Set(LEGACY_VERSIONS);
const MODERN_SET: ReadonlySet<string> = new Set([MODERN_VERSION]);

/** Versions an initialize request may negotiate on a transport. */
export function initializeVersions(transport: Transport): readonly string[] {
  return transport === "sse" ? [...LEGACY_VERSIONS, SSE_TRANSPORT_VERSION] : LEGACY_VERSIONS;
}

/** Echo the requested version when supported, else answer the newest initialize-based one. */
export function negotiateVersion(requested: unknown, transport: Transport): string {
  return typeof requested === "string" && initializeVersions(transport).includes(requested) ? requested : LATEST_LEGACY_VERSION;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}

function unsupported(requested: string, transport: Transport): ProtocolError {
  const supported = transport === "sse" ? [...SUPPORTED_VERSIONS, SSE_TRANSPORT_VERSION] : SUPPORTED_VERSIONS;
  return protocolError(
    UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version ${JSON.stringify(requested)}: this server speaks ${supported.join(", ")}.`,
    { code: "unsupported_protocol_version", supported, requested },
    400,
  );
}

export function headerMismatch(message: string): ProtocolError {
  return protocolError(HEADER_MISMATCH, `Header mismatch: ${message}`, { code: "header_mismatch" }, 400);
}

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/;

/** Mcp-Name / Mcp-Param-* values may be Base64-wrapped (`=?base64?…?=`): decode before comparing. */
export function decodeHeaderValue(value: string): string {
  const m = BASE64_SENTINEL.exec(value);
  return m ? Buffer.from(m[1]!, "base64").toString("utf8") : value;
}

/** Methods whose Mcp-Name header mirrors a body field (streamable-http.mdx, "Standard Request Headers"). */
function nameSource(msg: JsonRpcRequest): { field: string; value: unknown } | undefined {
  const p = (msg.params ?? {}) as Record<string, unknown>;
  if (msg.method === "tools/call" || msg.method === "prompts/get") return { field: "params.name", value: p.name };
  if (msg.method === "resources/read") return { field: "params.uri", value: p.uri };
  return undefined;
}

function metaOf(msg: JsonRpcRequest): Record<string, unknown> | undefined {
  if (msg.params === null || typeof msg.params !== "object" || Array.isArray(msg.params)) return undefined;
  const meta = (msg.params as Record<string, unknown>)._meta;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/**
 * Reads the revision of one message from its headers and body, refusing what the revision forbids:
 * a modern request without its required _meta fields (400, -32602), headers that disagree with the body
 * (400, -32020), an unsupported version (400, -32022).
 */
export function readRevision(msg: JsonRpcRequest, headers: IncomingHttpHeaders, transport: Transport): Revision {
  const raw = headerValue(headers, "mcp-protocol-version")?.trim();
  const header = raw === "" ? undefined : raw;
  const meta = metaOf(msg);
  const metaVersion = meta?.[META_PROTOCOL_VERSION];

  const modern = metaVersion !== undefined || (header !== undefined && MODERN_SET.has(header));
  if (!modern) {
    if (header !== undefined && !LEGACY_SET.has(header) && !(transport === "sse" && header === SSE_TRANSPORT_VERSION)) throw unsupported(header, transport);
    return { era: "legacy", version: header ?? DEFAULT_HEADER_VERSION, transport };
  }

  // 2026-07-28 order (conformance server-stateless): a request missing a required field is malformed
  // (-32602); then header against body (-32020); only then whether the version is one this server speaks.
  if (metaVersion === undefined) {
    const field = meta === undefined ? "params._meta" : `params._meta.${META_PROTOCOL_VERSION}`;
    throw protocolError(INVALID_PARAMS, `${field} is required in protocol revision ${MODERN_VERSION} (the request's protocol version).`, { field }, 400);
  }
  if (header !== metaVersion) {
    throw headerMismatch(
      header
        ? `MCP-Protocol-Version header ${JSON.stringify(header)} does not match body _meta version ${JSON.stringify(metaVersion)}.`
        : "the MCP-Protocol-Version header is required.",
    );
  }
  if (typeof metaVersion !== "string" || !MODERN_SET.has(metaVersion)) throw unsupported(String(metaVersion), transport);
  const method = headerValue(headers, "mcp-method");
  if (method === undefined) throw headerMismatch("the Mcp-Method header is required.");
  if (method !== msg.method) throw headerMismatch(`Mcp-Method header ${JSON.stringify(method)} does not match body method ${JSON.stringify(msg.method)}.`);
  const source = nameSource(msg);
  if (source) {
    const name = headerValue(headers, "mcp-name");
    if (name === undefined) throw headerMismatch(`the Mcp-Name header is required for ${msg.method}.`);
    const decoded = decodeHeaderValue(name);
    if (decoded !== source.value)
      throw headerMismatch(`Mcp-Name header ${JSON.stringify(decoded)} does not match body ${source.field} ${JSON.stringify(source.value)}.`);
  }
  if (msg.id !== undefined) {
    const caps = meta?.[META_CLIENT_CAPABILITIES];
    if (caps === null || typeof caps !== "object" || Array.isArray(caps)) {
      throw protocolError(
        INVALID_PARAMS,
        `params._meta["${META_CLIENT_CAPABILITIES}"] is required (an object; {} when the client has none).`,
        { field: `params._meta.${META_CLIENT_CAPABILITIES}` },
        400,
      );
    }
  }
  return { era: "modern", version: metaVersion, transport };
}
