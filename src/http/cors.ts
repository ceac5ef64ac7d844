/**
 * CORS for browser clients (the Inspector's web "direct" mode, web apps on an SDK, the OpenRPC
 * playground), with the `cors` library.
 *
 * The MCP paths answer CORS only for origins in ALLOWED_ORIGINS: the Host/Origin guard runs first, so a
 * foreign Origin keeps its 403 (DNS-rebinding protection) and never sees an Access-Control header. An
 * allowed origin gets its preflight (204, the requested headers echoed: 2026-07-28 adds Mcp-Method,
 * Mcp-Name and Mcp-Param-* headers) and, on every answer, the headers a browser client must read exposed:
 * the Bearer challenge, Retry-After, the RateLimit headers and Mcp-Session-Id. Tokens travel in the
 * Authorization header, never in cookies, so credentials mode is not needed.
 *
 * The public contract (GET /api/v1/openrpc.json) needs no token and holds nothing private: any origin.
 */
import cors from "cors";
import type { RequestHandler } from "express";
import type { Config } from "../config.js";
import { originAllowed } from "./guards.js";

export const EXPOSED_HEADERS = ["WWW-Authenticate", "Retry-After", "RateLimit", "RateLimit-Policy", "Mcp-Session-Id"];

/** For the MCP and SSE paths, after hostAndOriginGuard. */
export function mcpCors(config: Config): RequestHandler {
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && originAllowed(config, origin)),
    methods: ["GET", "POST", "DELETE"],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

/**
 * mcpCors for POST /api/v1/mcp, skipped when the request has no Origin: the library's origin callback
 * refuses an absent origin and sets no header then, so skipping it answers the same, without its per-call
 * work (copying its options, the callbacks) on every call of a client that is not a browser.
 */
export function mcpCorsIfOrigin(config: Config): RequestHandler {
  const withOrigin = mcpCors(config);
  return (req, res, next) => (req.headers.origin === undefined ? next() : withOrigin(req, res, next));
}

/** For GET /api/v1/openrpc.json: Access-Control-Allow-Origin: * */
export const publicCors: RequestHandler = cors({ origin: "*", methods: ["GET"], maxAge: 600 });
