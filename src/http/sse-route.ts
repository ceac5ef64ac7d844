/**
 * GET /api/v1/mcp/sse: the HTTP+SSE transport of protocol revision 2024-11-05, and the user's change
 * events.
 *
 *   GET  /api/v1/mcp/sse                         bearer token → 401; 30 connects/min/token → 429;
 *                                                200 text/event-stream, first event `endpoint` whose
 *                                                data is the URL to post messages to.
 *   POST /api/v1/mcp/sse/messages?stream=<id>    the same checks as POST /api/v1/mcp (envelope,
 *                                                revision headers, token, rate limit) plus: unknown
 *                                                stream → 404, a token of another user → 403; then
 *                                                202, and the JSON-RPC response arrives on the stream
 *                                                as a `message` event.
 *
 * Change events: every committed write of the stream's user, as a `notifications/finance/changed`
 * notification whose SSE id is the audit id, read from the audit log (so entries committed by other
 * processes too) after the last id sent: a reconnect with Last-Event-ID starts after that id, and a
 * Postgres listener outage delays events but loses none (src/events/bus.ts). Keep-alive comments every keepAliveMs; each keep-alive also
 * re-checks the token, so a revoked or expired token's stream closes.
 *
 * A stream lives in one process: behind a load balancer with several processes, its POSTs must reach
 * the process that holds it (sticky routing on the `stream` query parameter).
 */
import express, { type Request, type Response, type Router } from "express";
import { randomUUID } from "node:crypto";
import type { ChangeBus } from "../events/bus.js";
import { SseStream, SseStreams, changeNotification } from "../mcp/sse.js";
import { AppError } from "../errors.js";
import { INVALID_REQUEST, protocolError } from "../rpc/protocol-error.js";
import type { JsonRpcId } from "../rpc/message.js";
import { createChangeFeed } from "../events/change-feed.js";
import { newestAuditId } from "../audit/log.js";
import { authenticate, hostAndOriginGuard } from "./guards.js";
import { acceptedNotification, admit, answer, errorAnswer, idOf, sendAnswer, type McpRouteDeps } from "./mcp-exchange.js";
import { jsonBodyParser } from "./mcp-route.js";
import { applyLimit } from "./rate-limit-headers.js";
import { scopeOf, toolOf } from "./request-scope.js";
import { sendRpcError } from "./send.js";

export const SSE_PATH = "/api/v1/mcp/sse";
export const SSE_MESSAGES_PATH = "/api/v1/mcp/sse/messages";
export const DEFAULT_KEEPALIVE_MS = 20_000;
/** Retry-After for a connect refused by the open-stream caps: about one keep-alive, when dead streams are found. */
const STREAM_CAP_RETRY_SECONDS = 20;

export interface SseRouteDeps extends McpRouteDeps {
  bus: ChangeBus;
  /** Keep-alive comment interval (the issue asks for at least every 25 s). */
  keepAliveMs: number;
  streams?: SseStreams;
}

export function sseRouter(deps: SseRouteDeps): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const streams = deps.streams ?? new SseStreams();

  router.get(SSE_PATH, guard, (req, res) => {
    void openStream(deps, streams, req, res);
  });
  router.post(SSE_MESSAGES_PATH, guard, jsonBodyParser(deps.config), (req, res) => {
    void postMessage(deps, streams, req, res);
  });
  const notAllowed = (allow: string) => (_req: Request, res: Response) => {
    res.setHeader("Allow", allow);
    sendRpcError(res, null, protocolError(INVALID_REQUEST, `Method not allowed: use ${allow}.`, { code: "method_not_allowed" }, 405));
  };
  router.all(SSE_PATH, guard, notAllowed("GET"));
  router.all(SSE_MESSAGES_PATH, guard, notAllowed("POST"));
  return router;
}

/**
 * The Last-Event-ID a stream replays after, or undefined to send from now. Event ids are audit ids, at
 * most the newest one when the stream opens; anything else (not a number, past int64, past the newest
 * entry) cannot come from this server and is ignored rather than closing the stream, which would only
 * make the client reconnect with the same id again and again.
 */
function lastEventId(req: Request, newest: string): string | undefined {
  const raw = req.headers["last-event-id"];
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (v === undefined || !/^\d{1,19}$/.test(v)) return undefined;
  const id = BigInt(v);
  return id <= BigInt(newest) ? id.toString() : undefined;
}

async function openStream(deps: SseRouteDeps, streams: SseStreams, req: Request, res: Response): Promise<void> {
  const scope = scopeOf(res);
  const requestId = scope.request_id;
  let caller;
  try {
    caller = await authenticate(deps, req);
    scope.user_id = caller.userId;
    await applyLimit(deps.limits, res, "sse", caller.tokenId);
  } catch (err) {
    if (!res.headersSent) sendAnswer(res, errorAnswer(deps, null, err, requestId));
    return;
  }
  if (req.socket.destroyed) return;

  // Without Last-Event-ID a stream carries what is committed from now on.
  let start: string;
  try {
    start = await newestAuditId(deps.db, caller.userId);
  } catch (err) {
    if (!res.headersSent) sendAnswer(res, errorAnswer(deps, null, err, requestId));
    return;
  }
  if (req.socket.destroyed) return;
  // Checked with no await before streams.add below, so two connects cannot both take the last place.
  const open = streams.openCount(caller.tokenId, caller.userId);
  const caps = deps.config.sseStreams;
  if (open.token >= caps.perToken || open.user >= caps.perUser) {
    const which =
      open.token >= caps.perToken ? `this token has ${open.token} (at most ${caps.perToken})` : `this user has ${open.user} (at most ${caps.perUser})`;
    sendAnswer(
      res,
      errorAnswer(
        deps,
        null,
        new AppError("rate_limited", `Too many open event streams: ${which}. Close one, then retry.`, { retry_after_seconds: STREAM_CAP_RETRY_SECONDS }),
        requestId,
      ),
    );
    return;
  }

  res.writeHead(200, {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
  });
  const stream = new SseStream(randomUUID(), caller.userId, caller.tokenId, res);
  streams.add(stream);
  stream.event("endpoint", `${SSE_MESSAGES_PATH}?stream=${stream.id}`);

  // Every signal (a local write, another process's NOTIFY, the listener coming back) makes the feed
  // read the audit log after the last id this stream sent: no gap, no duplicate (src/events/change-feed.ts).
  const feed = createChangeFeed({
    db: deps.db,
    userId: caller.userId,
    afterId: lastEventId(req, start) ?? start,
    send: (entry) => stream.message(changeNotification(entry), entry.id),
    closed: () => stream.closed,
    failed: (err) => {
      deps.log.error("sse_replay_failed", { request_id: requestId, error: driverCode(err) });
      stream.close(); // the client reconnects with the Last-Event-ID it has
    },
  });
  stream.onClose(deps.bus.subscribe(caller.userId, feed.poke));
  stream.onClose(deps.bus.onResync(feed.poke));
  feed.poke(); // also catches what committed between reading `start` and subscribing

  const authorization = req.headers.authorization;
  const keepAlive = setInterval(() => {
    stream.comment("keep-alive");
    authenticate(deps, { headers: { authorization, host: req.headers.host } }).then(
      (c) => {
        if (c.tokenId !== stream.tokenId) stream.close();
      },
      () => stream.close(),
    );
  }, deps.keepAliveMs);
  stream.onClose(() => clearInterval(keepAlive));
  if (caller.expiresAt) {
    const ms = Date.parse(caller.expiresAt) - Date.now();
    const expiry = setTimeout(() => stream.close(), Math.max(0, Math.min(ms, 2_147_483_647)));
    stream.onClose(() => clearTimeout(expiry));
  }
}

/** What a failure logs: the driver's code, never its message (which can quote argument values). */
function driverCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : err instanceof Error ? err.name : "error";
}

async function postMessage(deps: SseRouteDeps, streams: SseStreams, req: Request, res: Response): Promise<void> {
  const scope = scopeOf(res);
  const requestId = scope.request_id;
  const streamId = typeof req.query.stream === "string" ? req.query.stream : "";
  let stream: SseStream | undefined;
  let id: JsonRpcId = null;
  try {
    const admitted = await admit(deps, req.body, req, res, "sse", (caller) => {
      scope.user_id = caller.userId;
      stream = streams.get(streamId);
      if (!stream) {
        throw protocolError(
          INVALID_REQUEST,
          `No open stream ${JSON.stringify(streamId)} on this server: open GET ${SSE_PATH} and post to the URL of its endpoint event.`,
          { code: "unknown_stream", field: "stream" },
          404,
        );
      }
      if (stream.userId !== caller.userId) {
        throw protocolError(
          INVALID_REQUEST,
          "This stream belongs to another user: post with a token of the user who opened it.",
          { code: "forbidden_stream", field: "stream" },
          403,
        );
      }
    });
    scope.tool = toolOf(admitted.msg);
    id = admitted.msg.id ?? null;
    if (acceptedNotification(admitted.msg, res)) return;
    res.status(202).type("text/plain").send("Accepted");
    const a = await answer(deps, admitted, requestId);
    stream!.message(a.body);
  } catch (err) {
    if (res.headersSent) return;
    sendAnswer(res, errorAnswer(deps, id ?? idOf(req.body), err, requestId));
  }
}
