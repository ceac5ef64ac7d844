import type { Handlers } from "../../../generated/handlers.js";
import { limits } from "../../../generated/limits.js";
import { tools } from "../../../generated/registry.js";
import type { Scope } from "../../../generated/types.js";
import { toolAvailable } from "../../auth/tool-access.js";

export const list_capabilities: Handlers["list_capabilities"] = async (_params, ctx) => ({
  tools: tools
    .filter((t) => toolAvailable(t, ctx.caller.scopes, ctx.config))
    .map((t) => ({ name: t.name, title: t.title, description: t.summary, scope: t.scope as Scope, kind: t.kind })),
  limits: {
    requests_per_minute: ctx.config.rateLimits.mcpPerMinute,
    sse_connects_per_minute: ctx.config.rateLimits.ssePerMinute,
    idempotency_key_retention_hours: ctx.config.idempotencyRetentionHours,
    max_page_size: limits.maxPageSize,
    default_page_size: limits.defaultPageSize,
  },
  writes_enabled: ctx.config.writeTools === "enabled",
});
