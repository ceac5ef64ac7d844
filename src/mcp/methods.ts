/**
 * The MCP methods on the JSON-RPC endpoint, for every revision this server speaks:
 *   legacy (2025-11-25, 2025-06-18, 2025-03-26, and 2024-11-05 on the SSE transport): initialize, ping,
 *     tools/list, tools/call, resources/list, resources/templates/list, resources/read, prompts/list,
 *     prompts/get, completion/complete (server/discover answers too, harmlessly);
 *   modern (2026-07-28): server/discover, tools/*, resources/*, prompts/*, completion/complete; every result carries resultType
 *     "complete" and the server's identity in _meta, cacheable ones ttlMs and cacheScope.
 * Anything else is not an MCP method here (undefined): the route answers -32601.
 */
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { rememberCapabilities } from "./client-capabilities.js";
import type { Logger } from "../log.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { SERVER_INFO, discoverResult, initializeResult } from "./lifecycle.js";
import { META_SERVER_INFO } from "./revisions.js";
import { SerializedJson } from "./serialized.js";
import { callTool, listToolsResult } from "./tools.js";
import { listResourceTemplates, listResources, readResource, refuseCursor } from "./resources.js";
import { getPrompt, listPrompts } from "./prompts.js";
import { complete } from "./completion.js";
import type { ResourceRegistry } from "./resource-types.js";
import type { McpContext, McpMethods } from "./types.js";

export type { McpMethods } from "./types.js";

/** How long a client may reuse a tools/list answer (2026-07-28 caching): the list changes only with the token's scopes and the server's config. */
export const TOOLS_LIST_TTL_MS = 300_000;
export const DISCOVER_TTL_MS = 3_600_000;
/**
 * resources/list, resources/templates/list, prompts/list and a fetched prompt: they change only with the
 * token's scopes, the config and the shipped knowledge base.
 */
export const RESOURCES_LIST_TTL_MS = 300_000;
const LIST_CACHE_MAX = 64;

const modernMeta = Object.freeze({ [META_SERVER_INFO]: SERVER_INFO });

function modern(result: Record<string, unknown>, cache?: { ttlMs: number; cacheScope: "public" | "private" }): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  // An input_required tool call (a confirmation, src/mcp/confirm-channels.ts) keeps its resultType.
  return { ...result, ...cache, resultType: result.resultType ?? "complete", _meta: meta ? { ...modernMeta, ...meta } : modernMeta };
}

/** What the MCP methods need of the services (src/app.ts builds them; no import of it, which would be a cycle). */
export interface McpMethodDeps {
  config: Config;
  db: Knex;
  dispatch: Dispatch;
  log: Logger;
  now: () => Date;
  resources: ResourceRegistry;
}

function capabilitiesOf(params: unknown): unknown {
  return params !== null && typeof params === "object" ? (params as Record<string, unknown>).capabilities : undefined;
}

export function createMcpMethods(services: McpMethodDeps): McpMethods {
  const callDeps = { dispatch: services.dispatch, log: services.log, db: services.db, now: services.now };
  // tools/list's text per (tools the token may use, era). Nothing invalidates it: the registry is
  // generated code and the config (the write switch) is fixed for the life of these services, so the
  // same key always yields the same bytes. A key is one of the few distinct scope combinations in use;
  // the cap only bounds memory against a user minting tokens with every combination.
  const listCache = new Map<string, SerializedJson>();
  return (msg, ctx: McpContext) => {
    const isModern = ctx.revision.era === "modern";
    switch (msg.method) {
      case "initialize": {
        // 2026-07-28 has no handshake: a modern-era initialize is an unknown method.
        if (isModern) return undefined;
        const result = initializeResult(msg.params, ctx.revision.transport);
        // Kept per session (src/mcp/client-capabilities.ts): a later tools/call of this session (on any
        // process) asks the person only if this client can. The SSE transport never asks, and an
        // initialize without a new session (inside a batch) opens none.
        if (ctx.revision.transport === "sse" || ctx.newSession === undefined) return Promise.resolve(result);
        return rememberCapabilities(services.db, ctx.caller.tokenId, ctx.newSession, capabilitiesOf(msg.params), services.now()).then(() => result);
      }
      case "ping":
        return isModern ? undefined : Promise.resolve({});
      case "server/discover": {
        const result = discoverResult(ctx.revision.transport);
        return Promise.resolve(isModern ? modern(result, { ttlMs: DISCOVER_TTL_MS, cacheScope: "public" }) : result);
      }
      case "tools/list": {
        const result = listToolsResult(msg.params, ctx, services.config);
        const key = `${ctx.revision.era}:${result.tools.map((t) => t.name).join(",")}`;
        let text = listCache.get(key);
        if (!text) {
          // Filtered by the token's scopes: private to this authorization context.
          text = new SerializedJson(JSON.stringify(isModern ? modern(result, { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" }) : result));
          if (listCache.size >= LIST_CACHE_MAX) listCache.delete(listCache.keys().next().value!);
          listCache.set(key, text);
        }
        return Promise.resolve(text);
      }
      case "tools/call":
        return isModern ? callTool(callDeps, msg.params, ctx).then((r) => modern(r)) : callTool(callDeps, msg.params, ctx);
      // Resources: filtered by the token's scopes, so private to this authorization context.
      case "resources/list":
        return listResources(services, msg.params, ctx).then((r) => (isModern ? modern(r, { ttlMs: RESOURCES_LIST_TTL_MS, cacheScope: "private" }) : r));
      case "resources/templates/list": {
        const result = listResourceTemplates(services, msg.params, ctx);
        return Promise.resolve(isModern ? modern(result, { ttlMs: RESOURCES_LIST_TTL_MS, cacheScope: "private" }) : result);
      }
      case "prompts/list": {
        refuseCursor("prompts/list", msg.params);
        const result = { prompts: listPrompts(ctx.caller.scopes, services.config) };
        return Promise.resolve(isModern ? modern(result, { ttlMs: RESOURCES_LIST_TTL_MS, cacheScope: "private" }) : result);
      }
      case "prompts/get": {
        const result = getPrompt(msg.params, ctx, services.config) as unknown as Record<string, unknown>;
        return Promise.resolve(isModern ? modern(result, { ttlMs: RESOURCES_LIST_TTL_MS, cacheScope: "private" }) : result);
      }
      case "completion/complete":
        return complete(services, msg.params, ctx).then((r) => (isModern ? modern(r) : r));
      case "resources/read":
        // Each provider says how long a read may be reused (none: a statement changes with every write).
        return readResource(services, msg.params, ctx).then(({ result, cache }) => (isModern ? modern(result, cache) : result));
      default:
        return undefined;
    }
  };
}
