/**
 * The MCP layer's view of one JSON-RPC message: the message context of src/rpc/message.ts plus the
 * protocol revision the message speaks and the transport that brought it.
 */
import type { JsonRpcRequest, MessageContext } from "../rpc/message.js";
import type { Revision } from "./revisions.js";

export interface McpContext extends MessageContext {
  revision: Revision;
}

/** An MCP method's result, or undefined when the method is not an MCP method (the caller answers -32601). */
export type McpMethods = (msg: JsonRpcRequest, ctx: McpContext) => Promise<unknown> | undefined;
