/**
 * resources/list, resources/templates/list and resources/read. The message has already passed the
 * checks every message passes (envelope, revision, token, rate limit: src/http/mcp-exchange.ts admit);
 * here the params are checked and the registry (src/resources/registry.ts, handed in by src/app.ts)
 * applies each provider's scope and reads.
 */
import type { Config } from "../config.js";
import type { Knex } from "knex";
import type { Dispatch } from "../rpc/dispatch.js";
import { INVALID_PARAMS, protocolError } from "../rpc/protocol-error.js";
import type { ReadCache, ResourceContext, ResourceRegistry } from "./resource-types.js";
import { META_CLIENT_CAPABILITIES } from "./revisions.js";
import type { McpContext } from "./types.js";

export interface ResourceDeps {
  config: Config;
  db: Knex;
  dispatch: Dispatch;
  now: () => Date;
  resources: ResourceRegistry;
}

const paramsOf = (params: unknown): Record<string, unknown> =>
  params !== null && typeof params === "object" && !Array.isArray(params) ? (params as Record<string, unknown>) : {};

/** Every list of this server fits one page, so any cursor is one this server never issued. */
export function refuseCursor(method: string, params: unknown): void {
  const cursor = paramsOf(params).cursor;
  if (cursor !== undefined && cursor !== null) {
    throw protocolError(INVALID_PARAMS, `params.cursor: ${method} returns everything on one page and never issues a cursor; call it without one.`, {
      field: "cursor",
      expected: "no cursor",
    });
  }
}

export function resourceContext(deps: ResourceDeps, params: unknown, ctx: McpContext): ResourceContext {
  const meta = paramsOf(paramsOf(params)._meta);
  const caps = meta[META_CLIENT_CAPABILITIES];
  return {
    caller: ctx.caller,
    requestId: ctx.requestId,
    db: deps.db,
    config: deps.config,
    now: deps.now,
    dispatch: deps.dispatch,
    ...(caps !== null && typeof caps === "object" && !Array.isArray(caps) ? { clientCapabilities: caps as Record<string, unknown> } : {}),
  };
}

export async function listResources(deps: ResourceDeps, params: unknown, ctx: McpContext): Promise<Record<string, unknown>> {
  refuseCursor("resources/list", params);
  return { resources: await deps.resources.list(resourceContext(deps, params, ctx)) };
}

export function listResourceTemplates(deps: ResourceDeps, params: unknown, ctx: McpContext): Record<string, unknown> {
  refuseCursor("resources/templates/list", params);
  return { resourceTemplates: deps.resources.templates(resourceContext(deps, params, ctx)) };
}

/** The read's contents, and the cache hint of its provider (2026-07-28 adds it to the result). */
export async function readResource(deps: ResourceDeps, params: unknown, ctx: McpContext): Promise<{ result: Record<string, unknown>; cache: ReadCache }> {
  const uri = paramsOf(params).uri;
  if (typeof uri !== "string" || uri === "") {
    throw protocolError(INVALID_PARAMS, "resources/read: params.uri: expected the uri of a resource, a string (from resources/list or a template).", {
      field: "uri",
      expected: "a resource uri",
    });
  }
  const { contents, cache } = await deps.resources.read(resourceContext(deps, params, ctx), uri);
  return { result: { contents }, cache };
}
