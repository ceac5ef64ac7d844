/**
 * The one path of every tool call, whichever transport brought it (MCP tools/call on Streamable HTTP or
 * on the SSE transport, or a direct JSON-RPC call): look the tool up → check scope → check the write
 * switch → validate params → handler (writes through the write pipeline, after the person's confirmation
 * where the client can ask for it: src/writes/confirm.ts) → validate the result.
 * Authentication and rate limiting happen once per JSON-RPC message, before this (src/http/mcp-exchange.ts admit).
 */
import type { Knex } from "knex";
import { randomIds, type IdSource } from "../db/ids.js";
import type { Config } from "../config.js";
import { AppError, internalError } from "../errors.js";
import { toolsByName, type ToolDefinition } from "../../generated/registry.js";
import type { Handlers } from "../../generated/handlers.js";
import type { Caller, ToolContext } from "../context.js";
import type { WriteHandler } from "../writes/pipeline.js";
import { confirmThenWrite, type ConfirmChannel } from "../writes/confirm.js";
import { METHOD_NOT_FOUND, protocolError } from "./protocol-error.js";
import { validationError } from "./describe-validation.js";
import { checkArguments } from "./input-checks.js";
import { translateDriverError } from "../db/errors.js";
import { poolStats, type DbWatch } from "../db/watch.js";
import type { Logger } from "../log.js";

export interface CallInfo {
  caller: Caller;
  requestId: string;
  /** The request's origin (MessageContext.origin). */
  origin?: string;
  /** How to ask the person behind the client before a write of info.x-confirm commits (src/writes/confirm.ts); none: never asked. */
  confirm?: ConfirmChannel;
}

export interface DispatchDeps {
  db: Knex;
  config: Config;
  handlers: Handlers;
  runWrite: (tool: string, params: Record<string, unknown>, ctx: ToolContext, handler: WriteHandler) => Promise<Record<string, unknown>>;
  log: Logger;
  now?: () => Date;
  ids?: IdSource;
  /** Counts the bounds of request work reached (src/db/watch.ts); each is logged with what the process held. */
  watch?: DbWatch;
}

export type Dispatch = (tool: string, params: unknown, call: CallInfo) => Promise<Record<string, unknown>>;

export function findTool(name: string): ToolDefinition {
  const tool = toolsByName.get(name);
  if (!tool) {
    throw protocolError(METHOD_NOT_FOUND, `Unknown tool ${JSON.stringify(name)}. Call tools/list (or list_capabilities) to see the tools this token may use.`);
  }
  return tool;
}

/** Positional params map onto the published order (required first), so clients generated from the published document work. */
function namedParams(tool: ToolDefinition, params: unknown): Record<string, unknown> {
  if (params === undefined || params === null) return {};
  if (Array.isArray(params)) {
    if (params.length > tool.positionalNames.length) {
      throw new AppError(
        "invalid_params",
        `${tool.name} takes at most ${tool.positionalNames.length} positional params (${tool.positionalNames.join(", ")}), got ${params.length}.`,
        {
          field: "(params)",
          expected: `at most ${tool.positionalNames.length} values in the order ${tool.positionalNames.join(", ")}`,
        },
      );
    }
    const out: Record<string, unknown> = {};
    params.forEach((v, i) => {
      if (v !== undefined && v !== null) out[tool.positionalNames[i]!] = v;
    });
    return out;
  }
  if (typeof params !== "object") {
    throw new AppError("invalid_params", `${tool.name} takes its params as an object of named arguments.`, { field: "(params)", expected: "an object" });
  }
  return structuredClone(params as Record<string, unknown>);
}

export function createDispatch(deps: DispatchDeps): Dispatch {
  const now = deps.now ?? (() => new Date());
  const ids = deps.ids ?? randomIds;
  return async (name, rawParams, call) => {
    const tool = findTool(name);
    if (tool.kind === "write" && call.caller.readOnly) {
      throw new AppError(
        "writes_disabled",
        `This client is connected to the read-only endpoint (/api/v1/mcp/read), where ${tool.name} cannot run. Tell the user; writing needs a client connected to /api/v1/mcp.`,
      );
    }
    if (!call.caller.scopes.has(tool.scope)) {
      throw new AppError("insufficient_scope", `This token lacks the scope ${tool.scope}, which ${tool.name} needs. Ask the user for a token that has it.`, {
        scope: tool.scope,
      });
    }
    if (tool.kind === "write" && deps.config.writeTools === "disabled") {
      throw new AppError(
        "writes_disabled",
        `Write tools are disabled on this server by its administrator, so ${tool.name} cannot run. Tell the user; do not retry.`,
      );
    }
    // Depth, size and text first: namedParams' structuredClone and ajv recurse.
    checkArguments(tool.name, rawParams);
    const params = namedParams(tool, rawParams);
    if (!tool.validateParams(params)) throw validationError(tool.name, tool.validateParams.errors ?? []);

    const ctx: ToolContext = { db: deps.db, caller: call.caller, requestId: call.requestId, config: deps.config, now, ids, origin: call.origin };
    const handler = deps.handlers[tool.name as keyof Handlers] as unknown as (p: unknown, c: ToolContext) => Promise<Record<string, unknown>>;
    let result: Record<string, unknown>;
    try {
      result =
        tool.kind === "write"
          ? await confirmThenWrite(deps.runWrite, tool, params, ctx, handler as unknown as WriteHandler, call.confirm)
          : await handler(params, ctx);
    } catch (err) {
      const bound = deps.watch?.noteFailure(err);
      // The operator's answer to "why did it stop answering": which bound, and what the process held then.
      if (bound)
        deps.log.error("db_bound_reached", {
          request_id: call.requestId,
          tool: tool.name,
          bound,
          pool: poolStats(deps.db),
          write_locks: deps.watch!.writeLocks(),
        });
      throw translateDriverError(err);
    }

    if (deps.config.validateResults && !tool.validateResult(result)) {
      // Never send a result that breaks the contract: it is our bug, so say so without details. The log
      // names where and which rule, never the value (ajv's verbose errors carry the data).
      deps.log.error("result_invalid", {
        tool: tool.name,
        request_id: call.requestId,
        errors: tool.validateResult.errors?.slice(0, 5).map((e) => ({ path: e.instancePath, keyword: e.keyword, schema: e.schemaPath })),
      });
      throw internalError();
    }
    return result;
  };
}
