/** What a token may use: a tool is usable when the token holds its scope and, for a write, writes are enabled. */
import { tools, type ToolDefinition } from "../../generated/registry.js";
import type { Config } from "../config.js";
import type { Caller } from "./caller.js";

/**
 * The scopes read tools need: all a token keeps on the read-only endpoint. No write tool needs one of them
 * (test/auth/read-endpoint.test.ts holds this), so narrowing a token to them leaves it no write at all.
 */
export const READ_SCOPES: ReadonlySet<string> = new Set(tools.filter((t) => t.kind === "read").map((t) => t.scope));

/** The caller as the read-only endpoint sees it: its scopes narrowed to READ_SCOPES, marked read-only. */
export function readOnlyCaller(caller: Caller): Caller {
  return { ...caller, scopes: new Set([...caller.scopes].filter((s) => READ_SCOPES.has(s))), readOnly: true };
}

/** Whether a token may use a tool right now: what tools/list and list_capabilities show. */
export function toolAvailable(tool: ToolDefinition, scopes: ReadonlySet<string>, config: Pick<Config, "writeTools">): boolean {
  return scopes.has(tool.scope) && (tool.kind === "read" || config.writeTools === "enabled");
}
