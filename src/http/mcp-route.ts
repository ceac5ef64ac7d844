/**
 * POST /api/v1/mcp: the JSON-RPC endpoint. MCP Streamable HTTP messages (every revision, see
 * src/mcp/revisions.ts) and direct OpenRPC calls share it. Order of checks (each with the status it
 * yields): Host/Origin 403 → Accept 406 → body size 413 → JSON 400 (-32700) → envelope 400 (-32600) →
 * protocol revision headers 400 (-32022 / -32020 / -32602) → token 401 (rpc.discover excepted: the
 * contract is public) → rate limit 429 → the method.
 *
 * GET and DELETE /api/v1/mcp answer 405: the server is stateless (no sessions, no GET stream). Change
 * events travel on GET /api/v1/mcp/sse (src/http/sse-route.ts), whose posted messages go through the
 * same admit/answer functions below.
 */
import { translateDriverError } from "../db/errors.js";
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from "express";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { RateLimits } from "../limits/types.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { handleDirectCall, parseEnvelope, toJsonRpcError, unknownMethod, type JsonRpcError, type JsonRpcId, type JsonRpcRequest } from "../rpc/message.js";
import { INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, protocolError } from "../rpc/protocol-error.js";
import { toolsByName } from "../../generated/registry.js";
import { readRevision, type Revision, type Transport } from "../mcp/revisions.js";
import { stringifyResponse } from "../mcp/serialized.js";
import type { McpContext, McpMethods } from "../mcp/types.js";
import type { Caller } from "../tools/context.js";
import { acceptsJsonOrSse, hasJsonContentType, authenticate, challengeHeaders, hostAndOriginGuard, type ChallengeContext } from "./guards.js";
import { sendRpcError } from "./send.js";
import { handleBatch } from "./batch.js";
import type { TurnGate } from "./turns.js";
import { applyLimit } from "./rate-limit-headers.js";
import { scopeOf, toolOf } from "./request-scope.js";

export interface McpRouteDeps {
  db: Knex;
  config: Config;
  log: Logger;
  dispatch: Dispatch;
  limits: RateLimits;
  mcp: McpMethods;
  openrpc: unknown;
  /** Spreads SQLite requests over event-loop turns (src/http/turns.ts); none: every request starts at once. */
  gate?: TurnGate;
}

/** express.json with the endpoint's answers: 415 for a Content-Type that is not JSON, 413 over the limit, -32700 for a body that is not JSON. */
export function jsonBodyParser(config: Config): RequestHandler {
  const jsonBody = express.json({ limit: config.maxBodyBytes, strict: false, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasJsonContentType(req)) {
      const type = JSON.stringify(req.headers["content-type"]);
      return sendRpcError(res, null, protocolError(INVALID_REQUEST, `Content-Type ${type} is not JSON: send the body as application/json.`, { code: "unsupported_media_type" }, 415));
    }
    jsonBody(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; status?: number };
      if (e.type === "entity.too.large") {
        return sendRpcError(res, null, protocolError(INVALID_REQUEST, `The request body is larger than ${config.maxBodyBytes} bytes.`, { code: "payload_too_large" }, 413));
      }
      return sendRpcError(res, null, protocolError(PARSE_ERROR, "The body is not valid JSON.", {}, 400));
    });
  };
}

export function mcpRouter(deps: McpRouteDeps): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);

  router.post(
    "/api/v1/mcp",
    guard,
    (req, res, next) => {
      if (!acceptsJsonOrSse(req)) {
        return sendRpcError(res, null, protocolError(INVALID_REQUEST, "Accept must include application/json or text/event-stream.", { code: "not_acceptable" }, 406));
      }
      next();
    },
    jsonBodyParser(deps.config),
    (req, res) => {
      void handlePost(deps, req, res);
    },
  );

  // Stateless Streamable HTTP: no GET stream, no sessions to delete (spec: 405 is the compliant answer).
  router.all("/api/v1/mcp", guard, (_req, res) => {
    res.setHeader("Allow", "POST");
    sendRpcError(
      res,
      null,
      protocolError(INVALID_REQUEST, "Method not allowed: this MCP endpoint is stateless and takes POST only. Change events are on GET /api/v1/mcp/sse.", { code: "method_not_allowed" }, 405),
    );
  });

  return router;
}

/** A message that passed the envelope, revision, token and rate-limit checks. */
export interface Admitted {
  msg: JsonRpcRequest;
  revision: Revision;
  caller: Caller;
}

/**
 * The checks every message passes before its method runs, on either transport: envelope, protocol
 * revision headers, token, rate limit (every JSON-RPC message counts). Throws what the HTTP answer
 * must say; `owner` (SSE transport) refuses a token of another user than the stream's.
 */
export async function admit(deps: McpRouteDeps, body: unknown, req: Request, res: Response, transport: Transport, owner?: (caller: Caller) => void): Promise<Admitted> {
  const turn = deps.gate?.enter();
  if (turn) await turn;
  const msg = parseEnvelope(body);
  const revision = readRevision(msg, req.headers, transport);
  const caller = await authenticate(deps.db, deps.config, req);
  if (caller.grantId && res.locals.challenge) (res.locals.challenge as ChallengeContext).grantedScopes = [...caller.scopes];
  owner?.(caller);
  await applyLimit(deps.limits, res, "mcp", caller.tokenId);
  return { msg, revision, caller };
}

/**
 * Notifications need no answer: MCP's (notifications/…) are accepted (202). Any other message without
 * an id would be a tool call or request whose outcome nobody could read, so it is refused.
 */
export function checkNotification(msg: JsonRpcRequest): void {
  if (!msg.method.startsWith("notifications/")) {
    throw protocolError(INVALID_REQUEST, `${msg.method} is a request, not a notification: send it with an "id" to get its result.`, { field: "id" }, 400);
  }
}

export interface Answer {
  httpStatus: number;
  body: { jsonrpc: "2.0"; id: JsonRpcId; result: unknown } | { jsonrpc: "2.0"; id: JsonRpcId; error: JsonRpcError };
  /** The error, when there was one (its HTTP headers: WWW-Authenticate, Retry-After). */
  err?: unknown;
}

/** Runs an admitted request's method and returns its JSON-RPC response; never throws. */
export async function answer(deps: McpRouteDeps, admitted: Admitted, requestId: string): Promise<Answer> {
  const { msg, revision, caller } = admitted;
  const id = msg.id ?? null;
  try {
    const ctx: McpContext = { caller, requestId, revision };
    const result = await routeMessage(deps, msg, ctx);
    return { httpStatus: 200, body: { jsonrpc: "2.0", id, result } };
  } catch (err) {
    return errorAnswer(deps, id, err, requestId);
  }
}

export function errorAnswer(deps: Pick<McpRouteDeps, "log">, id: JsonRpcId, thrown: unknown, requestId: string): Answer {
  // Translated here too, so that a driver error that means `unavailable` gets its Retry-After header.
  const err = translateDriverError(thrown);
  const { error, httpStatus } = toJsonRpcError(err, deps.log, requestId);
  return { httpStatus, body: { jsonrpc: "2.0", id, error }, err };
}

/** Writes an error answer with the headers its status calls for. */
export function sendAnswer(res: Response, a: Answer): void {
  if (a.err !== undefined) {
    challengeHeaders(res, a.err);
    if (a.err instanceof AppError && a.err.retryable && typeof a.err.details.retry_after_seconds === "number") {
      res.setHeader("Retry-After", String(a.err.details.retry_after_seconds));
    }
  }
  writeJson(res, a.httpStatus, a.body);
}

/** The id of a message the envelope check refused, when it is a usable one (else null). */
export function idOf(body: unknown): JsonRpcId {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const raw = (body as { id?: unknown }).id;
  return typeof raw === "string" || (typeof raw === "number" && Number.isFinite(raw)) ? raw : null;
}

/** res.json without express's ETag and freshness work, which a JSON-RPC answer to a POST never uses. */
export function writeJson(res: Response, status: number, body: unknown): void {
  const text = stringifyResponse(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

async function handlePost(deps: McpRouteDeps, req: Request, res: Response): Promise<void> {
  const scope = scopeOf(res);
  const requestId = scope.request_id;
  let id: JsonRpcId = null;
  try {
    const body = req.body as { method?: unknown; id?: unknown } | undefined;
    if (Array.isArray(body)) return await handleBatch(deps, body, req, res, requestId);
    if (body && typeof body === "object" && !Array.isArray(body) && body.method === "rpc.discover") {
      // The published contract needs no token; it still passes the envelope and revision checks.
      const msg = parseEnvelope(body);
      id = msg.id ?? null;
      readRevision(msg, req.headers, "streamable-http");
      writeJson(res, 200, { jsonrpc: "2.0", id, result: deps.openrpc });
      return;
    }
    const admitted = await admit(deps, body, req, res, "streamable-http");
    scope.user_id = admitted.caller.userId;
    scope.tool = toolOf(admitted.msg);
    id = admitted.msg.id ?? null;
    if (admitted.msg.id === undefined) {
      checkNotification(admitted.msg);
      res.status(202).end();
      return;
    }
    sendAnswer(res, await answer(deps, admitted, requestId));
  } catch (err) {
    if (res.headersSent) return;
    sendAnswer(res, errorAnswer(deps, id ?? idOf(req.body), err, requestId));
  }
}

async function routeMessage(deps: McpRouteDeps, msg: JsonRpcRequest, ctx: McpContext): Promise<unknown> {
  if (toolsByName.has(msg.method)) return handleDirectCall(deps.dispatch, msg, ctx);
  const mcp = deps.mcp(msg, ctx);
  if (mcp !== undefined) return mcp;
  if (ctx.revision.era === "modern") {
    // 2026-07-28: an unknown method is 404 with -32601, which tells a modern client this is a modern server.
    throw protocolError(METHOD_NOT_FOUND, `Method not found: ${msg.method} is not a method of protocol revision ${ctx.revision.version} on this server.`, {}, 404);
  }
  throw unknownMethod(msg.method);
}
