/**
 * POST /api/v1/mcp: the JSON-RPC endpoint. MCP Streamable HTTP messages and direct OpenRPC calls share
 * it. Order of checks (each with the status it yields): Host/Origin 403 → Accept 406 → body size 413 →
 * JSON 400 (-32700) → envelope 400 (-32600) → token 401 (rpc.discover excepted: the contract is public)
 * → rate limit 429 → the method.
 */
import express, { type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import { randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { RateLimits } from "../limits/types.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { handleDirectCall, parseEnvelope, toJsonRpcError, unknownMethod, type JsonRpcRequest, type McpMethods, type MessageContext } from "../rpc/message.js";
import { PARSE_ERROR, protocolError } from "../rpc/protocol-error.js";
import { toolsByName } from "../../generated/registry.js";
import { acceptsJsonOrSse, authenticate, challengeHeaders, hostAndOriginGuard } from "./guards.js";
import { sendRpcError } from "./send.js";
import { applyLimit } from "./rate-limit-headers.js";

export interface McpRouteDeps {
  db: Knex;
  config: Config;
  log: Logger;
  dispatch: Dispatch;
  limits: RateLimits;
  mcp: McpMethods;
  openrpc: unknown;
}

export function mcpRouter(deps: McpRouteDeps): Router {
  const router = express.Router();
  const jsonBody = express.json({ limit: deps.config.maxBodyBytes, strict: false, type: () => true });

  router.post("/api/v1/mcp", hostAndOriginGuard(deps.config), (req, res, next) => {
    if (!acceptsJsonOrSse(req)) {
      return sendRpcError(res, null, protocolError(-32600, "Accept must include application/json or text/event-stream.", { code: "not_acceptable" }, 406));
    }
    jsonBody(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; status?: number };
      if (e.type === "entity.too.large") {
        return sendRpcError(res, null, protocolError(-32600, `The request body is larger than ${deps.config.maxBodyBytes} bytes.`, { code: "payload_too_large" }, 413));
      }
      return sendRpcError(res, null, protocolError(PARSE_ERROR, "The body is not valid JSON.", {}, 400));
    });
  }, (req, res) => {
    void handlePost(deps, req, res);
  });

  return router;
}

async function handlePost(deps: McpRouteDeps, req: Request, res: Response): Promise<void> {
  const requestId = randomUUID();
  let id: JsonRpcRequest["id"] = null;
  try {
    const msg = parseEnvelope(req.body);
    id = msg.id ?? null;
    if (msg.method === "rpc.discover") {
      res.json({ jsonrpc: "2.0", id, result: deps.openrpc });
      return;
    }
    const caller = await authenticate(deps.db, deps.config, req);
    await applyLimit(deps.limits, res, "mcp", caller.tokenId);
    const ctx: MessageContext = { caller, requestId };
    const isNotification = msg.id === undefined;
    const result = await routeMessage(deps, msg, ctx, req, res);
    if (res.headersSent) return;
    if (isNotification) {
      res.status(202).end();
      return;
    }
    res.json({ jsonrpc: "2.0", id, result });
  } catch (err) {
    if (res.headersSent) return;
    const { error, httpStatus } = toJsonRpcError(err, deps.log, requestId);
    challengeHeaders(res, err);
    if (err instanceof AppError && err.errorName === "rate_limited" && typeof err.details.retry_after_seconds === "number") {
      res.setHeader("Retry-After", String(err.details.retry_after_seconds));
    }
    res.status(httpStatus).json({ jsonrpc: "2.0", id, error });
  }
}

async function routeMessage(deps: McpRouteDeps, msg: JsonRpcRequest, ctx: MessageContext, _req: Request, _res: Response): Promise<unknown> {
  if (toolsByName.has(msg.method)) return handleDirectCall(deps.dispatch, msg, ctx);
  const mcp = deps.mcp(msg, ctx);
  if (mcp !== undefined) return mcp;
  throw unknownMethod(msg.method);
}
