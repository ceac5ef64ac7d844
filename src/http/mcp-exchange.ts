/**
 * One JSON-RPC message on the MCP endpoint, from admission to answer: the checks every message passes
 * (admit), running its method (answer), and writing the answer. Shared by POST /api/v1/mcp
 * (src/http/mcp-route.ts), its batches (src/http/batch.ts) and the messages posted to an SSE stream
 * (src/http/sse-route.ts), which is why it is not part of any one of those routes.
 */
import { translateDriverError } from "../db/errors.js";
import type { Request, Response } from "express";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { RateLimits } from "../limits/types.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { handleDirectCall, parseEnvelope, toJsonRpcError, unknownMethod, type JsonRpcError, type JsonRpcId, type JsonRpcRequest } from "../rpc/message.js";
import { INVALID_REQUEST, METHOD_NOT_FOUND, protocolError } from "../rpc/protocol-error.js";
import { toolsByName } from "../../generated/registry.js";
import { readRevision, type Revision, type Transport } from "../mcp/revisions.js";
import { stringifyResponse } from "../mcp/serialized.js";
import type { ClientRequests, McpContext, McpMethods } from "../mcp/types.js";
import type { Caller } from "../context.js";
import { authenticate, challengeHeaders, endpointOf, type ChallengeContext } from "./guards.js";
import type { TurnGate } from "./turns.js";
import type { ChangeBus } from "../events/bus.js";
import { applyLimit } from "./rate-limit-headers.js";
import type { SessionBook } from "../mcp/sessions.js";

export interface McpRouteDeps {
  db: Knex;
  config: Config;
  log: Logger;
  dispatch: Dispatch;
  limits: RateLimits;
  mcp: McpMethods;
  openrpc: unknown;
  /** The services' clock (token expiry). */
  now: () => Date;
  /** Spreads SQLite requests over event-loop turns (src/http/turns.ts); none: every request starts at once. */
  gate?: TurnGate;
  /** Relays a client's answer to the process whose question waits for it (src/http/answer-stream.ts). */
  bus?: Pick<ChangeBus, "relay" | "onRelay">;
  /** The live MCP sessions (src/mcp/sessions.ts); none: Mcp-Session-Id is not checked (the SSE transport). */
  sessions?: SessionBook;
}

/** A message that passed the envelope, revision, token and rate-limit checks. */
export interface Admitted {
  msg: JsonRpcRequest;
  revision: Revision;
  caller: Caller;
  /** scheme://host of the request (the Host guard has checked the name). */
  origin: string;
  /** The client's Mcp-Session-Id, when it sent one. */
  sessionId?: string;
}

/**
 * The checks every message passes before its method runs, on either transport: envelope, protocol
 * revision headers, token, rate limit (every JSON-RPC message counts). Throws what the HTTP answer
 * must say; `owner` (SSE transport) refuses a token of another user than the stream's.
 */
export async function admit(
  deps: McpRouteDeps,
  body: unknown,
  req: Request,
  res: Response,
  transport: Transport,
  owner?: (caller: Caller) => void,
): Promise<Admitted> {
  const turn = deps.gate?.enter();
  if (turn) await turn;
  const msg = parseEnvelope(body);
  const revision = readRevision(msg, req.headers, transport);
  const caller = await authenticate(deps, req, endpointOf(res));
  if (caller.grantId && res.locals.challenge) (res.locals.challenge as ChallengeContext).grantedScopes = [...caller.scopes];
  owner?.(caller);
  await applyLimit(deps.limits, res, "mcp", caller.tokenId);
  const session = req.headers["mcp-session-id"];
  // An initialize opens a new session; whatever id it carries is not one yet. 2026-07-28 has no sessions.
  if (transport === "streamable-http" && msg.method !== "initialize" && revision.era !== "modern") await checkSession(deps, req, caller);
  return {
    msg,
    revision,
    caller,
    origin: `${req.protocol}://${req.headers.host ?? "127.0.0.1"}`,
    ...(typeof session === "string" && session !== "" ? { sessionId: session } : {}),
  };
}

/**
 * A request naming an Mcp-Session-Id that is not a live session of the caller's user answers 404, as the
 * Streamable HTTP transport says: the client must then initialize a new session (src/mcp/sessions.ts).
 */
export async function checkSession(deps: Pick<McpRouteDeps, "sessions" | "now">, req: Pick<Request, "headers">, caller: Caller): Promise<void> {
  const session = req.headers["mcp-session-id"];
  if (!deps.sessions || typeof session !== "string" || session === "") return;
  if (await deps.sessions.isLive(session, caller.userId, deps.now())) return;
  throw protocolError(
    INVALID_REQUEST,
    "Session not found: this Mcp-Session-Id names no live session (expired, ended, or never opened here). Send initialize again, without Mcp-Session-Id, to start a new one.",
    { code: "session_not_found", field: "Mcp-Session-Id" },
    404,
  );
}

/**
 * Whether a message is a notification (it has no id), which needs no answer. Only MCP's (notifications/…)
 * are accepted: any other message without an id would be a tool call or request whose outcome nobody
 * could read, so it is refused.
 */
export function isNotification(msg: JsonRpcRequest): boolean {
  if (msg.id !== undefined) return false;
  if (!msg.method.startsWith("notifications/")) {
    throw protocolError(INVALID_REQUEST, `${msg.method} is a request, not a notification: send it with an "id" to get its result.`, { field: "id" }, 400);
  }
  return true;
}

/** A POST of one notification (Streamable HTTP or the SSE transport's) is accepted: 202, no body. True when `msg` was one and so answered. */
export function acceptedNotification(msg: JsonRpcRequest, res: Response): boolean {
  if (!isNotification(msg)) return false;
  res.status(202).end();
  return true;
}

export interface Answer {
  httpStatus: number;
  body: { jsonrpc: "2.0"; id: JsonRpcId; result: unknown } | { jsonrpc: "2.0"; id: JsonRpcId; error: JsonRpcError };
  /** The error, when there was one (its HTTP headers: WWW-Authenticate, Retry-After). */
  err?: unknown;
}

/** Runs an admitted request's method and returns its JSON-RPC response; never throws. clientRequests: the answer's stream, when it may ask the client. */
export async function answer(deps: McpRouteDeps, admitted: Admitted, requestId: string, clientRequests?: ClientRequests, newSession?: string): Promise<Answer> {
  const { msg, revision, caller, origin, sessionId } = admitted;
  const id = msg.id ?? null;
  try {
    const ctx: McpContext = {
      caller,
      requestId,
      revision,
      clientRequests,
      origin,
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...(newSession !== undefined ? { newSession } : {}),
    };
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

async function routeMessage(deps: McpRouteDeps, msg: JsonRpcRequest, ctx: McpContext): Promise<unknown> {
  if (toolsByName.has(msg.method)) return handleDirectCall(deps.dispatch, msg, ctx);
  const mcp = deps.mcp(msg, ctx);
  if (mcp !== undefined) return mcp;
  if (ctx.revision.era === "modern") {
    // 2026-07-28: an unknown method is 404 with -32601, which tells a modern client this is a modern server.
    throw protocolError(
      METHOD_NOT_FOUND,
      `Method not found: ${msg.method} is not a method of protocol revision ${ctx.revision.version} on this server.`,
      {},
      404,
    );
  }
  throw unknownMethod(msg.method);
}
