/**
 * Express middleware shared by the MCP routes: DNS-rebinding protection (Host and Origin allow-lists),
 * content negotiation (Accept), and the bearer-token check with its WWW-Authenticate answer.
 */
import type { NextFunction, Request, Response } from "express";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { authenticateBearer } from "../auth/tokens.js";
import type { TokenCache } from "../auth/token-cache.js";
import { AppError } from "../errors.js";
import type { Caller } from "../context.js";
import { INVALID_REQUEST, protocolError } from "../rpc/protocol-error.js";
import { sendRpcError } from "./send.js";
import { endpointResource, oauthUrls, type McpEndpoint, type OAuthUrls } from "../oauth/urls.js";
import { readOnlyCaller } from "../auth/tool-access.js";

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
      return sendRpcError(
        res,
        null,
        protocolError(INVALID_REQUEST, `Host ${JSON.stringify(host ?? "")} is not allowed (ALLOWED_HOSTS).`, { code: "forbidden_host" }, 403),
      );
    }
    const origin = req.headers.origin;
    if (origin && !originAllowed(config, origin)) {
      return sendRpcError(
        res,
        null,
        protocolError(INVALID_REQUEST, `Origin ${JSON.stringify(origin)} is not allowed (ALLOWED_ORIGINS).`, { code: "forbidden_origin" }, 403),
      );
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

/** The challenge to a request that presented no credentials at all: no error attribute (RFC 6750 §3.1). */
export const BEARER_CHALLENGE = 'Bearer realm="finance-mcp"';
/** The challenge to a request whose token is malformed, unknown, expired or revoked. */
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="finance-mcp", error="invalid_token"';

/** What the challenges of one request need to know (res.locals.challenge, set by challengeContext and admit). */
export interface ChallengeContext {
  /** RFC 9728 metadata URL: present when OAuth is on for this request (src/oauth/urls.ts). */
  resourceMetadata?: string;
  /** The scopes of an OAuth client's token, so that a step-up asks for them as well as the missing one. */
  grantedScopes?: readonly string[];
}

const urlsByHost = new WeakMap<Config, Map<string | undefined, OAuthUrls | undefined>>();

/**
 * oauthUrls of a request, remembered per Host header: they depend on the configuration and that header
 * only, and every call needed them twice (its challenge context and the token's audience), each time
 * parsing a URL. At most 64 hosts are kept (ALLOWED_HOSTS names a few; with "*" any, so the map is bounded).
 * The object is shared: callers read it and never change it.
 */
export function requestOauthUrls(config: Config, headers: Request["headers"]): OAuthUrls | undefined {
  let byHost = urlsByHost.get(config);
  if (!byHost) urlsByHost.set(config, (byHost = new Map()));
  const host = headers.host;
  if (byHost.has(host)) return byHost.get(host);
  const urls = oauthUrls(config, headers);
  if (byHost.size >= 64) byHost.clear();
  byHost.set(host, urls);
  return urls;
}

/** For every MCP path: remembers the resource metadata URL the request's challenges will name. */
export function challengeContext(config: Config) {
  return (req: Request, res: Response, next: NextFunction) => {
    const urls = requestOauthUrls(config, req.headers);
    const ctx: ChallengeContext = { resourceMetadata: urls && endpointResource(urls, endpointOf(res)).resourceMetadata };
    res.locals.challenge = ctx;
    next();
  };
}

/** Marks a request as one to the read-only endpoint; mounted before challengeContext and the endpoint's steps. */
export function readEndpoint(_req: Request, res: Response, next: NextFunction): void {
  res.locals.mcpEndpoint = "read";
  next();
}

/** The MCP endpoint a request reached (readEndpoint marks the read-only one). */
export function endpointOf(res: Pick<Response, "locals">): McpEndpoint {
  return res.locals.mcpEndpoint === "read" ? "read" : "full";
}

/**
 * The caller of a request to `endpoint`. A token an OAuth client received is accepted by the endpoint
 * (resource) it was issued for only; on the read-only endpoint every token is narrowed to read scopes.
 */
export async function authenticate(
  deps: { db: Knex; side?: Knex; config: Config; now: () => Date; tokenCache?: TokenCache },
  req: Pick<Request, "headers">,
  endpoint: McpEndpoint = "full",
): Promise<Caller> {
  const urls = requestOauthUrls(deps.config, req.headers);
  // The services' clock, as every other check of time: a token expires when the service says it is time.
  const caller = await authenticateBearer(
    // The side connection: authenticating never waits for another call's write transaction (src/db/side.ts).
    deps.side ?? deps.db,
    req.headers.authorization,
    deps.config.tokenPepper,
    deps.now(),
    urls && endpointResource(urls, endpoint).resource,
    deps.tokenCache,
  );
  return endpoint === "read" ? readOnlyCaller(caller) : caller;
}

/**
 * Adds the headers that go with an error's HTTP status (401/403 challenges). With OAuth on, both name the
 * resource metadata (RFC 9728 §5.1), which is how an OAuth client finds the authorization server. A 403
 * to an OAuth client's token names the scopes it has plus the missing one: clients (the MCP SDK's step-up)
 * ask for exactly the challenge's scope, and a new token with only the missing scope would lose the others.
 */
export function challengeHeaders(res: Response, err: unknown): void {
  if (!(err instanceof AppError)) return;
  const ctx = (res.locals.challenge ?? {}) as ChallengeContext;
  const metadata = ctx.resourceMetadata ? `, resource_metadata="${ctx.resourceMetadata}"` : "";
  if (err.errorName === "unauthorized") {
    // RFC 6750 §3.1: a request without any authentication information (no header, or another scheme such
    // as Basic) gets no error code; invalid_token only when a bearer token was presented and refused.
    const presented = /^bearer\s+\S/i.test(res.req?.headers.authorization ?? "");
    res.setHeader("WWW-Authenticate", `${presented ? INVALID_TOKEN_CHALLENGE : BEARER_CHALLENGE}${metadata}`);
  }
  if (err.errorName === "insufficient_scope" && typeof err.details.scope === "string") {
    const scopes = ctx.grantedScopes ? [...new Set([...ctx.grantedScopes, err.details.scope])].sort().join(" ") : err.details.scope;
    res.setHeader("WWW-Authenticate", `Bearer realm="finance-mcp", error="insufficient_scope", scope="${scopes}"${metadata}`);
  }
}
