/**
 * What a tool call becomes in MCP: a CallToolResult.
 *
 * Success: the tool's result as structuredContent (it validates against the tool's outputSchema, which
 * dispatch checks) and one text block with the same data rendered compactly for the model (model-text.ts:
 * no nulls, empty lists or timestamps; Money as "-12.50 USD"), for clients that put only content in
 * the model's context.
 *
 * Failure: an AppError that a language model can act on (invalid_params, not_found, conflict,
 * idempotency_*, writes_disabled, calculation_error, not_implemented, internal_error…) becomes a result
 * with isError: true whose text is the message plus the error's data (field, expected, …), so the model
 * can correct its call (SEP-1303). Errors of the transport and of the caller's credentials stay JSON-RPC
 * errors with their HTTP status: unauthorized (401), insufficient_scope (403 + challenge), rate_limited
 * (429). Protocol errors (unknown tool, malformed request) are thrown by the caller, not converted here.
 */
import { AppError, internalError } from "../errors.js";
import { modelText } from "./model-text.js";

export interface TextContent {
  type: "text";
  text: string;
}

export interface CallToolResult {
  content: TextContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * AppErrors that keep their JSON-RPC form (and HTTP status) over MCP: those the spec gives a 4xx status
 * (x-http-status: unauthorized, insufficient_scope, rate_limited), failures of the caller's credentials
 * or rate that no change to the model's call fixes. Everything else becomes an isError tool result.
 */
export function isTransportError(err: unknown): boolean {
  return err instanceof AppError && err.httpStatus >= 400 && err.httpStatus < 500;
}

/** The line that ends an answer an app draws; the server instructions say once what it means (APP_VIEW_MEANS). */
export const APP_VIEW_LINE = "\n\nApp view: ";

/**
 * A tool's answer: its result as text for the model, and as data. `app`: the MCP App that draws it
 * (openrpc.json x-apps), named in the text by its title, so a model can tell the person what they see
 * rather than guess; what the line means is said once, in the server instructions, not on every answer.
 */
export function successResult(result: Record<string, unknown>, app?: { title: string }): CallToolResult {
  const view = app ? `${APP_VIEW_LINE}${app.title}.` : "";
  return { content: [{ type: "text", text: `${modelText(result)}${view}` }], structuredContent: result };
}

export function errorResult(err: AppError): CallToolResult {
  const data = err.toData();
  return {
    content: [{ type: "text", text: `${err.message}\nerror.data: ${JSON.stringify(data)}` }],
    isError: true,
  };
}

/** An unexpected failure (already logged by the caller) as a tool result that changes nothing. */
export function unexpectedErrorResult(): CallToolResult {
  return errorResult(internalError());
}
