/**
 * MCP methods on the JSON-RPC endpoint. The protocol layer (issue 3: initialize, tools/list,
 * tools/call, ping, server/discover, revisions) lives in src/mcp; until it lands only direct OpenRPC
 * calls work, and MCP methods answer "method not found".
 */
import type { Services } from "../app.js";
import type { McpMethods } from "../rpc/message.js";

export function createMcpMethods(_services: Services): McpMethods {
  return () => undefined;
}
