/** What a token may use: a tool is usable when the token holds its scope and, for a write, writes are enabled. */
import type { ToolDefinition } from "../../generated/registry.js";
import type { Config } from "../config.js";

/** Whether a token may use a tool right now: what tools/list and list_capabilities show. */
export function toolAvailable(tool: ToolDefinition, scopes: ReadonlySet<string>, config: Pick<Config, "writeTools">): boolean {
  return scopes.has(tool.scope) && (tool.kind === "read" || config.writeTools === "enabled");
}
