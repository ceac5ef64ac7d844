/**
 * tools/list and tools/call. Everything about a tool comes from the generated registry; the call goes
 * through services.dispatch, the one path of every tool call (scope → write switch → params → handler
 * → result validation), exactly like a direct JSON-RPC call.
 */
import { apps } from "../../generated/apps.js";
import { tools, toolsByName, type ToolDefinition } from "../../generated/registry.js";
import { describeForLog } from "../db/errors.js";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import { toolAvailable } from "../auth/tool-access.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { INVALID_PARAMS, ProtocolError, protocolError } from "../rpc/protocol-error.js";
import type { McpContext } from "./types.js";
import { confirmChannel, type ChannelDeps } from "./confirm-channels.js";
import { AwaitingConfirmation } from "../writes/confirm.js";
import { errorResult, isTransportError, successResult, unexpectedErrorResult, type CallToolResult } from "./tool-result.js";

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Readonly<Record<string, unknown>>;
  outputSchema: Readonly<Record<string, unknown>>;
  annotations: Readonly<Record<string, unknown>>;
  /** The MCP App that draws the result (_meta.ui.resourceUri), for hosts with Apps; others ignore it. */
  _meta?: { readonly ui: { readonly resourceUri: string } };
}

/**
 * Built once per tool: tools/list only filters and copies references. The title is the top-level one only
 * (annotations.title repeated it and cost a model ~150 tokens a turn; clients without top-level titles show
 * the name).
 */
const descriptors = new Map<ToolDefinition, McpTool>(
  tools.map((t) => [
    t,
    {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
      ...(t._meta ? { _meta: t._meta } : {}),
    },
  ]),
);

/** The tools this token may use right now, in registry (spec) order. */
export function listTools(scopes: ReadonlySet<string>, config: Config): McpTool[] {
  return tools.filter((t) => toolAvailable(t, scopes, config)).map((t) => descriptors.get(t)!);
}

export function listToolsResult(params: unknown, ctx: McpContext, config: Config): { tools: McpTool[] } {
  const cursor = params !== null && typeof params === "object" ? (params as Record<string, unknown>).cursor : undefined;
  if (cursor !== undefined && cursor !== null) {
    // The whole list fits one page, so this server never hands out a cursor: any cursor is invalid.
    throw protocolError(INVALID_PARAMS, "params.cursor: this server returns every tool on one page and never issues a cursor; call tools/list without one.", {
      field: "cursor",
      expected: "no cursor",
    });
  }
  return { tools: listTools(ctx.caller.scopes, config) };
}

function malformed(field: string, expected: string): ProtocolError {
  return protocolError(INVALID_PARAMS, `tools/call: params.${field}: expected ${expected}.`, { field, expected });
}

export interface CallDeps extends ChannelDeps {
  dispatch: Dispatch;
  log: Logger;
}

/**
 * A static token (pasted into the client) lacking a scope: the answer is a tool result the model reads,
 * not the 403 challenge an OAuth client's token gets. Bridges such as mcp-remote take a 403
 * insufficient_scope as the cue for an OAuth step-up, which cannot replace a pasted header (it ends in
 * "403 after trying upscoping"), and mcp-remote only logs a failed request, so the model would see
 * nothing at all.
 */
function staticTokenLacksScope(err: AppError): AppError {
  return new AppError(
    "insufficient_scope",
    `${err.message} The user must give this client a token with that scope: create one (finance-mcp token create, POST /api/v1/mcp-tokens or the account page) and replace the token in the client's configuration. Do not retry with this token.`,
    err.details,
  );
}

/**
 * The app view an answer names: a tool's app draws a picture the model should know of under a read and
 * under a preview (the import's boxes and button), never under a committed write, where the text alone
 * says what happened (issue 49).
 */
function appViewOf(name: string, result: Record<string, unknown>): (typeof apps)[number] | undefined {
  if (toolsByName.get(name)?.kind !== "read" && result.status !== "dry_run") return undefined;
  return apps.find((a) => a.tools.includes(name));
}

export async function callTool(deps: CallDeps, params: unknown, ctx: McpContext): Promise<CallToolResult> {
  if (params === null || typeof params !== "object" || Array.isArray(params))
    throw malformed("name", "the name of a tool (params is an object {name, arguments})");
  const { name, arguments: args } = params as Record<string, unknown>;
  if (typeof name !== "string") throw malformed("name", "the name of a tool, a string");
  if (!toolsByName.has(name)) {
    throw protocolError(INVALID_PARAMS, `Unknown tool: ${name}. Call tools/list to see the tools this token may use.`, {
      code: "unknown_tool",
      field: "name",
      expected: "the name of a tool from tools/list",
    });
  }
  if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) throw malformed("arguments", "an object of named arguments");

  try {
    const confirm = await confirmChannel(deps, name, params as Record<string, unknown>, ctx);
    const result = await deps.dispatch(name, args ?? {}, { caller: ctx.caller, requestId: ctx.requestId, origin: ctx.origin, confirm });
    return successResult(result, appViewOf(name, result));
  } catch (err) {
    // 2026-07-28: the person must confirm first; the client retries with their answer (src/mcp/confirm-channels.ts).
    if (err instanceof AwaitingConfirmation) return { resultType: "input_required", ...err.result } as unknown as CallToolResult;
    if (err instanceof AppError && !isTransportError(err)) return errorResult(err);
    if (err instanceof AppError && err.errorName === "insufficient_scope" && !ctx.caller.grantId) return errorResult(staticTokenLacksScope(err));
    if (err instanceof AppError || err instanceof ProtocolError) throw err;
    deps.log.error("unhandled_error", {
      request_id: ctx.requestId,
      tool: name,
      ...describeForLog(err),
    });
    return unexpectedErrorResult();
  }
}
