/**
 * The resources this server offers, one provider per source (the OpenRPC document, the knowledge base,
 * statements, MCP Apps' `ui://` pages). To add a source, write a ResourceProvider (src/resources/types.ts)
 * and add it to PROVIDERS: nothing else changes.
 * The registry applies each provider's scope, so a resource outside the token's scopes is neither
 * listed nor readable, and finds the provider of a uri for resources/read.
 */
import { lacksScope } from "../mcp/scope-refusal.js";
import { MAX_URI_LENGTH, resourceNotFound } from "./errors.js";
import { knowledgeArticles } from "./knowledge.js";
import { uiApps } from "./apps.js";
import { openRpcDocument } from "./openrpc.js";
import { walletStatements } from "./statements.js";
import type { ResourceContext, ResourceProvider, ResourceRegistry } from "./types.js";

/** In this order in resources/list and resources/templates/list; the first provider that owns a uri reads it. */
export const PROVIDERS: readonly ResourceProvider[] = [openRpcDocument, knowledgeArticles, walletStatements, uiApps];

const NO_CACHE = Object.freeze({ ttlMs: 0, cacheScope: "private" as const });

const allowed = (p: ResourceProvider, ctx: ResourceContext) => p.scope === undefined || ctx.caller.scopes.has(p.scope);

export function createResourceRegistry(providers: readonly ResourceProvider[] = PROVIDERS): ResourceRegistry {
  return {
    async list(ctx) {
      const lists = await Promise.all(providers.filter((p) => allowed(p, ctx)).map((p) => p.list(ctx)));
      return lists.flat();
    },
    templates(ctx) {
      return providers.filter((p) => allowed(p, ctx)).flatMap((p) => p.templates?.(ctx) ?? []);
    },
    async read(ctx, uri) {
      if (uri.length > MAX_URI_LENGTH) throw resourceNotFound(uri);
      const provider = providers.find((p) => p.owns(uri));
      if (!provider) throw resourceNotFound(uri);
      if (!allowed(provider, ctx)) {
        // As a tool call without its scope: the caller's token, not the uri, must change.
        throw lacksScope(ctx.caller, provider.scope!, `reading ${uri}`);
      }
      return { contents: await provider.read(ctx, uri), cache: provider.readCache ?? NO_CACHE };
    },
    async complete(ctx, uriTemplate, variable, prefix) {
      const provider = providers.find((p) => allowed(p, ctx) && (p.templates?.(ctx) ?? []).some((t) => t.uriTemplate === uriTemplate));
      return (await provider?.complete?.(ctx, uriTemplate, variable, prefix)) ?? [];
    },
  };
}
