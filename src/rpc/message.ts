/**
 * One JSON-RPC message, after the HTTP layer has parsed it and authenticated the caller. Direct OpenRPC
 * calls (method = tool name) go to dispatch; MCP methods go to the MCP layer (src/mcp), which calls
 * dispatch for tools/call. Both transports (Streamable HTTP and the SSE transport) come through here.
 */
import { AppError, internalError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Caller } from "../auth/caller.js";
import type { Dispatch } from "./dispatch.js";
import { INVALID_REQUEST, METHOD_NOT_FOUND, ProtocolError, protocolError } from "./protocol-error.js";
import { describeForLog, translateDriverError } from "../db/errors.js";
import { findShapeProblem } from "./input-checks.js";
import { limits } from "../../generated/limits.js";

export type JsonRpcId = string | number | null;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id?: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Checks the envelope; a batch or a malformed message is an invalid request. */
export function parseEnvelope(body: unknown): JsonRpcRequest {
  if (Array.isArray(body)) throw protocolError(INVALID_REQUEST, "JSON-RPC batches are not supported: send one request per HTTP request.", {}, 400);
  if (body === null || typeof body !== "object") throw protocolError(INVALID_REQUEST, "The body must be a JSON-RPC 2.0 request object.", {}, 400);
  // Before anything recursive reads the message. Looser than dispatch's check of a tool's own arguments
  // (which nest up to two levels below the message: params, tools/call's arguments), so that dispatch's
  // finer check, with the text rules and the field named from the arguments, decides whenever it can.
  const shape = findShapeProblem(body, { checkText: false, maxDepth: limits.maxParamsDepth + 3, maxValues: limits.maxParamsValues * 2 });
  if (shape) {
    if (shape.path === "params" || shape.path.startsWith("params.")) {
      throw new AppError("invalid_params", `${shape.path}: ${shape.message}. Fix this argument and call again.`, {
        field: shape.path,
        expected: shape.expected,
      });
    }
    throw protocolError(INVALID_REQUEST, `${shape.path}: ${shape.message}.`, { field: shape.path }, 400);
  }
  const msg = body as Record<string, unknown>;
  if (msg.jsonrpc !== "2.0") throw protocolError(INVALID_REQUEST, 'jsonrpc: expected "2.0".', { field: "jsonrpc" }, 400);
  if (typeof msg.method !== "string" || msg.method === "")
    throw protocolError(INVALID_REQUEST, "method: expected a non-empty string.", { field: "method" }, 400);
  if ("id" in msg && msg.id !== null && typeof msg.id !== "string" && typeof msg.id !== "number") {
    throw protocolError(INVALID_REQUEST, "id: expected a string, a number or null.", { field: "id" }, 400);
  }
  if (typeof msg.id === "number" && !Number.isFinite(msg.id)) {
    // "id": 1e400 parses as Infinity, which no answer could echo (JSON has no Infinity).
    throw protocolError(INVALID_REQUEST, "id: the number is too large to represent; use a string or an integer within ±2^53.", { field: "id" }, 400);
  }
  if (msg.params !== undefined && (msg.params === null || typeof msg.params !== "object")) {
    throw protocolError(INVALID_REQUEST, "params: expected an object or an array.", { field: "params" }, 400);
  }
  return msg as unknown as JsonRpcRequest;
}

/** The only place where a known error becomes a JSON-RPC error object (every route and transport uses it). */
export function errorObject(err: AppError | ProtocolError): JsonRpcError {
  return { code: err.code, message: err.message, data: err instanceof AppError ? err.toData() : err.data };
}

/** Any thrown value as a JSON-RPC error and its HTTP status; an unexpected one is logged and becomes internal_error. */
export function toJsonRpcError(thrown: unknown, log: Logger, requestId: string): { error: JsonRpcError; httpStatus: number } {
  const err = translateDriverError(thrown);
  if (err instanceof AppError || err instanceof ProtocolError) return { error: errorObject(err), httpStatus: err.httpStatus };
  log.error("unhandled_error", { request_id: requestId, ...describeForLog(err) });
  const internal = internalError();
  return { error: errorObject(internal), httpStatus: internal.httpStatus };
}

export interface MessageContext {
  caller: Caller;
  requestId: string;
  /** The origin the request reached (scheme://host, Host already checked by the guards): whoami's account page without PUBLIC_URL. */
  origin?: string;
  /** The MCP session the client named (Mcp-Session-Id), where the client's declared capabilities are kept. */
  sessionId?: string;
}

export async function handleDirectCall(dispatch: Dispatch, msg: JsonRpcRequest, ctx: MessageContext): Promise<unknown> {
  return dispatch(msg.method, msg.params, { caller: ctx.caller, requestId: ctx.requestId, origin: ctx.origin });
}

export function unknownMethod(method: string): ProtocolError {
  return protocolError(METHOD_NOT_FOUND, `Unknown method ${JSON.stringify(method)}. Tools are called by name (see rpc.discover) or through MCP tools/call.`);
}
