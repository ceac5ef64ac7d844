/**
 * Express middleware shared by the MCP routes: DNS-rebinding protection (Host and Origin allow-lists),
 * content negotiation (Accept), and the bearer-token check with its WWW-Authenticate answer.
 */
import type { NextFunction, Request, Response } from "express";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { authenticateBearer } from "../auth/tokens.js";
import { AppError } from "../errors.js";
import type { Caller } from "../tools/context.js";
import { INVALID_REQUEST, protocolError } from "../rpc/protocol-error.js";
import { sendRpcError } from "./send.js";

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  return hostHeader.split(":")[0]!;
}

/** An Origin listed in ALLOWED_ORIGINS, exactly or by scheme and host (any port); "*" allows all. */
export function originAllowed(config: Config, origin: string): boolean {
  if (config.allowedOrigins.includes("*")) return true;
  try {
    const u = new URL(origin);
    return config.allowedOrigins.some((o) => o === origin || o === `${u.protocol}//${u.hostname}`);
  } catch {
    return false;
  }
}

export function hostAndOriginGuard(config: Config) {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    if (!config.allowedHosts.includes("*") && (!host || !config.allowedHosts.includes(hostName(host).toLowerCase()))) {
      return sendRpcError(res, null, protocolError(INVALID_REQUEST, `Host ${JSON.stringify(host ?? "")} is not allowed (ALLOWED_HOSTS).`, { code: "forbidden_host" }, 403));
    }
    const origin = req.headers.origin;
    if (origin && !originAllowed(config, origin)) {
      return sendRpcError(res, null, protocolError(INVALID_REQUEST, `Origin ${JSON.stringify(origin)} is not allowed (ALLOWED_ORIGINS).`, { code: "forbidden_origin" }, 403));
    }
    next();
  };
}

/** No Accept header means any media type (RFC 9110 §12.5.1): Python's urllib, Go's and Java's clients send none. */
export function acceptsJsonOrSse(req: Request): boolean {
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === "") return true;
  return /application\/json|text\/event-stream|\*\/\*|application\/\*/.test(accept);
}

/**
 * The body of a JSON-RPC POST must be JSON: a Content-Type of application/json or any +json type, with
 * any parameters. A missing Content-Type is read as JSON (simple clients and curl -d without -H omit or
 * vary it, and the body is parsed strictly anyway); any other type is refused with 415.
 */
export function hasJsonContentType(req: Request): boolean {
  const type = req.headers["content-type"];
  if (type === undefined || type.trim() === "") return true;
  const media = type.split(";")[0]!.trim().toLowerCase();
  return media === "application/json" || /^application\/[a-z0-9.+-]*\+json$/.test(media);
}

export const BEARER_CHALLENGE = 'Bearer realm="finance-mcp", error="invalid_token"';

export async function authenticate(db: Knex, config: Config, req: Request): Promise<Caller> {
  return authenticateBearer(db, req.headers.authorization, config.tokenPepper);
}

/** Adds the headers that go with an error's HTTP status (401/403 challenges). */
export function challengeHeaders(res: Response, err: unknown): void {
  if (!(err instanceof AppError)) return;
  if (err.errorName === "unauthorized") res.setHeader("WWW-Authenticate", BEARER_CHALLENGE);
  if (err.errorName === "insufficient_scope" && typeof err.details.scope === "string") {
    res.setHeader("WWW-Authenticate", `Bearer realm="finance-mcp", error="insufficient_scope", scope="${err.details.scope}"`);
  }
}
