/**
 * The MCP layer's view of one JSON-RPC message: the message context of src/rpc/message.ts plus the
 * protocol revision the message speaks and the transport that brought it.
 */
import type { JsonRpcRequest, MessageContext } from "../rpc/message.js";
import type { Revision } from "./revisions.js";

/**
 * Requests from the server to the client on the answer's own stream (Streamable HTTP, initialize-era
 * revisions): the result of the client's response, or undefined when it answered with an error, closed
 * the connection or did not answer in time.
 */
export interface ClientRequests {
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
}

export interface McpContext extends MessageContext {
  revision: Revision;
  /** Present when this message's HTTP answer can become a stream (a single POST that accepts text/event-stream). */
  clientRequests?: ClientRequests;
  /** The session an initialize opens (named in its answer's Mcp-Session-Id header), minted by the HTTP layer. */
  newSession?: string;
}

/** An MCP method's result, or undefined when the method is not an MCP method (the caller answers -32601). */
export type McpMethods = (msg: JsonRpcRequest, ctx: McpContext) => Promise<unknown> | undefined;
