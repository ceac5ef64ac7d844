/**
 * POST /api/v1/mcp: the JSON-RPC endpoint. MCP Streamable HTTP messages (every revision, see
 * src/mcp/revisions.ts) and direct OpenRPC calls share it. Order of checks (each with the status it
 * yields): Host/Origin 403 → Accept 406 → body size 413 → JSON 400 (-32700) → envelope 400 (-32600) →
 * protocol revision headers 400 (-32022 / -32020 / -32602) → token 401 (rpc.discover excepted: the
 * contract is public) → rate limit 429 → the method.
 *
 * POST /api/v1/mcp/read is the same endpoint with read tools only, whatever the token's scopes
 * (src/http/guards.ts readEndpoint; docs/decisions.md#read-only-endpoint).
 *
 * GET and DELETE on either answer 405: no GET stream, and a session ends by itself (src/mcp/sessions.ts). Change
 * events travel on GET /api/v1/mcp/sse (src/http/sse-route.ts), whose posted messages go through the
 * same admit/answer functions (src/http/mcp-exchange.ts).
 */
import { newSessionId } from "../mcp/client-capabilities.js";
import { SessionBook } from "../mcp/sessions.js";
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from "express";
import type { Config } from "../config.js";
import { parseEnvelope, type JsonRpcId } from "../rpc/message.js";
import { INVALID_REQUEST, PARSE_ERROR, protocolError } from "../rpc/protocol-error.js";
import { readRevision } from "../mcp/revisions.js";
import { acceptsJsonOrSse, hasJsonContentType, hostAndOriginGuard } from "./guards.js";
import { sendRpcError } from "./send.js";
import { acceptedNotification, admit, answer, errorAnswer, idOf, sendAnswer, writeJson, type McpRouteDeps } from "./mcp-exchange.js";
import { handleBatch } from "./batch.js";
import { scopeOf, toolOf } from "./request-scope.js";
import { AnswerStream, Questions, isClientResponse, resultOf } from "./answer-stream.js";
import { sharedByProcesses } from "../db/engine.js";
import { authenticate, endpointOf } from "./guards.js";
import { applyLimit } from "./rate-limit-headers.js";
import { MCP_PATH, MCP_READ_PATH } from "../oauth/urls.js";

/** The tools whose single call may carry a body up to MAX_IMPORT_BODY_BYTES instead of MAX_BODY_BYTES. */
const LARGE_BODY_TOOLS = new Set(["import_transactions"]);

/** A single (not batched) call of one of LARGE_BODY_TOOLS, direct or through MCP tools/call. */
function isLargeBodyCall(body: unknown): boolean {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  const tool = method === "tools/call" ? params?.name : method;
  return typeof tool === "string" && LARGE_BODY_TOOLS.has(tool);
}

/**
 * express.json with the endpoint's answers: 415 for a Content-Type that is not JSON, 413 over the limit, -32700 for a body that is not JSON.
 * The limit is MAX_BODY_BYTES, except for a single import_transactions call (a bank statement), whose
 * limit is MAX_IMPORT_BODY_BYTES: bodies up to the larger limit are parsed, then held to the smaller one
 * unless they are that call (docs/decisions.md#a-larger-body-for-import-only).
 *
 * The common body (a Content-Length within the limit, no Content-Encoding, UTF-8) is read here directly:
 * its chunks, one UTF-8 decode without a byte order mark, JSON.parse, as express.json does it but without
 * its generic steps (content-type parsing, charset and encoding lookups, raw-body's stream bookkeeping:
 * 4–6 % of a whoami's CPU). Everything else (chunked, compressed, another charset, over the limit) goes
 * through express.json as before, so every answer stays the same (docs/decisions.md#raw-json-body).
 */
export function jsonBodyParser(config: Config): RequestHandler {
  const largest = Math.max(config.maxBodyBytes, config.maxImportBodyBytes);
  const sizes = new WeakMap<Request, number>();
  const jsonBody = express.json({
    limit: largest,
    strict: false,
    type: () => true,
    verify: (req, _res, buf) => void sizes.set(req as Request, buf.length),
  });
  // For a body of unknown length sent without a valid token (authenticateLargeBody): the common limit only.
  const smallJsonBody = express.json({ limit: config.maxBodyBytes, strict: false, type: () => true });
  const limits =
    largest === config.maxBodyBytes ? `${largest} bytes` : `${config.maxBodyBytes} bytes (${config.maxImportBodyBytes} for one import_transactions call)`;
  const tooLarge = (res: Response) =>
    sendRpcError(res, null, protocolError(INVALID_REQUEST, `The request body is larger than ${limits}.`, { code: "payload_too_large" }, 413));
  const notJson = (res: Response) => sendRpcError(res, null, protocolError(PARSE_ERROR, "The body is not valid JSON.", {}, 400));
  const parsed = (req: Request, res: Response, next: NextFunction, size: number) => {
    if (size > config.maxBodyBytes && !isLargeBodyCall(req.body)) return tooLarge(res);
    next();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasJsonContentType(req)) {
      const type = JSON.stringify(req.headers["content-type"]);
      return sendRpcError(
        res,
        null,
        protocolError(INVALID_REQUEST, `Content-Type ${type} is not JSON: send the body as application/json.`, { code: "unsupported_media_type" }, 415),
      );
    }
    const length = plainBodyLength(req, largest);
    if (length !== undefined) {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => void chunks.push(chunk));
      req.once("error", () => notJson(res)); // aborted: what express.json's 400 became here too
      req.once("end", () => {
        const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
        try {
          // As express.json: an empty body is {}, a leading byte order mark is dropped (iconv-lite's utf-8).
          req.body = text.length === 0 ? {} : JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
        } catch {
          return notJson(res);
        }
        parsed(req, res, next, length);
      });
      return;
    }
    (res.locals.smallBodyOnly ? smallJsonBody : jsonBody)(req, res, (err?: unknown) => {
      if (!err) return parsed(req, res, next, sizes.get(req) ?? 0);
      const e = err as { type?: string; status?: number };
      if (e.type === "entity.too.large") return tooLarge(res);
      return notJson(res);
    });
  };
}

/** `charset=utf-8` (any case, quoted or not) as the only charset parameter the direct read takes. */
const UTF8_CHARSET = /;\s*charset\s*=\s*"?utf-8"?\s*(;|$)/i;

/**
 * The Content-Length of a body the endpoint reads directly (see jsonBodyParser), or undefined when
 * express.json must read it: no length (chunked, or no body at all), over the limit, a Content-Encoding,
 * or a charset other than UTF-8.
 */
function plainBodyLength(req: Request, limit: number): number | undefined {
  const h = req.headers;
  const raw = h["content-length"];
  if (raw === undefined || h["transfer-encoding"] !== undefined) return undefined;
  const encoding = h["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") return undefined;
  const type = h["content-type"];
  if (type !== undefined && /charset/i.test(type) && !UTF8_CHARSET.test(type)) return undefined;
  const length = Number(raw);
  return Number.isSafeInteger(length) && length >= 0 && length <= limit ? length : undefined;
}

/**
 * A body larger than MAX_BODY_BYTES (only an import_transactions call may be, up to MAX_IMPORT_BODY_BYTES)
 * is read and parsed only for a valid token: before, anyone could make the server read and parse 8 MiB
 * before the token was checked (issue 41). A stated Content-Length above it without a valid token is
 * answered 401 at once; a body of unknown length (chunked) without one is read up to MAX_BODY_BYTES only
 * (413 past it), so that rpc.discover and a small call's own 401 stay as they were. The token is checked
 * from the header alone, and again as usual after the body is read (admit). A small body costs nothing more.
 */
function authenticateLargeBody(deps: McpRouteDeps): RequestHandler {
  return (req, res, next) => {
    const length = Number(req.headers["content-length"]);
    const chunked = req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] === undefined;
    if (!chunked && Number.isSafeInteger(length) && length <= deps.config.maxBodyBytes) return next();
    authenticate(deps, req, endpointOf(res)).then(
      () => next(),
      (err: unknown) => {
        if (chunked) {
          res.locals.smallBodyOnly = true;
          return next();
        }
        // The unread body is dropped with the connection rather than read in order to be thrown away.
        res.setHeader("Connection", "close");
        sendAnswer(res, errorAnswer(deps, null, err, scopeOf(res).request_id));
      },
    );
  };
}

/** The endpoint's routes: POST (`post`, the path of every call, which src/app.ts mounts first) and the 405 for other methods. */
export function mcpEndpoint(routeDeps: McpRouteDeps): { post: RequestHandler[]; router: Router } {
  const deps: McpRouteDeps = { ...routeDeps, sessions: routeDeps.sessions ?? new SessionBook(routeDeps.db) };
  const router = express.Router();
  // The questions this app's tools/calls are waiting on; answers POSTed to another process arrive relayed.
  const questions = new Questions();
  deps.bus?.onRelay((payload) => questions.deliverRelayed(payload));
  const guard = hostAndOriginGuard(deps.config);

  const post: RequestHandler[] = [
    (req, res, next) => {
      if (!acceptsJsonOrSse(req)) {
        return sendRpcError(
          res,
          null,
          protocolError(INVALID_REQUEST, "Accept must include application/json or text/event-stream.", { code: "not_acceptable" }, 406),
        );
      }
      next();
    },
    authenticateLargeBody(deps),
    jsonBodyParser(deps.config),
    (req, res) => {
      void handlePost(deps, questions, req, res);
    },
  ];

  // Stateless Streamable HTTP: no GET stream, no sessions to delete (spec: 405 is the compliant answer).
  router.all([MCP_PATH, MCP_READ_PATH], guard, (_req, res) => {
    res.setHeader("Allow", "POST");
    sendRpcError(
      res,
      null,
      protocolError(
        INVALID_REQUEST,
        "Method not allowed: this MCP endpoint is stateless and takes POST only. Change events are on GET /api/v1/mcp/sse.",
        { code: "method_not_allowed" },
        405,
      ),
    );
  });

  return { post, router };
}

async function handlePost(deps: McpRouteDeps, questions: Questions, req: Request, res: Response): Promise<void> {
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
    if (isClientResponse(body)) return await handleClientResponse(deps, questions, body, req, res);
    const admitted = await admit(deps, body, req, res, "streamable-http");
    scope.user_id = admitted.caller.userId;
    scope.tool = toolOf(admitted.msg);
    id = admitted.msg.id ?? null;
    if (acceptedNotification(admitted.msg, res)) return;
    // A tools/call may have to ask the person (elicitation/create): its answer can become a stream.
    const stream = admitted.msg.method === "tools/call" ? AnswerStream.for(questions, req, res, admitted.caller, endpointOf(res)) : undefined;
    // An initialize opens a session: the client's capabilities are kept under it (never per token), and
    // the client sends its id back on every request (src/mcp/client-capabilities.ts). The read-only
    // endpoint never asks the person anything, so it opens none and writes nothing (issue 51).
    const opensSession = admitted.msg.method === "initialize" && admitted.revision.era !== "modern" && endpointOf(res) === "full";
    const newSession = opensSession ? newSessionId() : undefined;
    const a = await answer(deps, admitted, requestId, stream, newSession);
    if (newSession !== undefined && a.err === undefined && !("error" in a.body)) res.setHeader("Mcp-Session-Id", newSession);
    if (stream?.isOpen) stream.finish(a.body);
    else sendAnswer(res, a);
  } catch (err) {
    if (res.headersSent) return;
    sendAnswer(res, errorAnswer(deps, id ?? idOf(req.body), err, requestId));
  }
}

/**
 * The client's response to a request the server sent on an answer's stream (elicitation/create): 202 when
 * a request of this process waits for it under the caller's token; on Postgres, a response no request
 * here waits for is relayed to the other processes (only its action and ids) and answered 202 as well;
 * otherwise 400. The token is checked and the message counts against the rate limit, like any other.
 */
async function handleClientResponse(
  deps: McpRouteDeps,
  questions: Questions,
  body: { id: unknown; result?: unknown; error?: unknown },
  req: Request,
  res: Response,
): Promise<void> {
  const endpoint = endpointOf(res);
  const caller = await authenticate(deps, req, endpoint);
  await applyLimit(deps.limits, res, "mcp", caller.tokenId);
  const result = resultOf(body);
  // Only on the endpoint that asked (issue 52): an answer posted to /read never confirms a write asked on /api/v1/mcp.
  if (questions.deliver(body.id, caller.tokenId, endpoint, result)) {
    res.status(202).end();
    return;
  }
  // The read-only endpoint never asks (it runs no write), so no process waits for an answer posted there.
  if (endpoint === "full" && typeof body.id === "string" && sharedByProcesses(deps.db) && deps.bus) {
    const action = result !== null && typeof result === "object" ? (result as Record<string, unknown>).action : undefined;
    await deps.bus.relay(
      JSON.stringify({ id: body.id.slice(0, 200), token_id: caller.tokenId, endpoint, action: typeof action === "string" ? action.slice(0, 20) : null }),
    );
    res.status(202).end();
    return;
  }
  throw protocolError(
    INVALID_REQUEST,
    "No request of this server is waiting for a response with this id (answered already, timed out, or sent to another token or endpoint than the one that asked).",
    { field: "id" },
    400,
  );
}
