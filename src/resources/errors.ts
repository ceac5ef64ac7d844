/**
 * The one answer to a uri that names no resource this caller can read: JSON-RPC -32602 (Invalid Params)
 * with the uri in data, on every revision. 2026-07-28 requires -32602 (SEP-2164); 2025-11-25 suggested
 * -32002, but both official SDKs answer -32602 on every revision and their clients accept either.
 * An unknown uri, a malformed one and another user's wallet all get this same answer, so an answer
 * never tells whether something exists that the caller may not see.
 */
import { INVALID_PARAMS, protocolError, type ProtocolError } from "../rpc/protocol-error.js";

/** A uri longer than this is refused before any provider looks at it (a template's longest instance is far shorter). */
export const MAX_URI_LENGTH = 512;

export function resourceNotFound(uri: string): ProtocolError {
  const shown = uri.length > MAX_URI_LENGTH ? `${uri.slice(0, MAX_URI_LENGTH)}…` : uri;
  return protocolError(INVALID_PARAMS, `Resource not found: ${shown}. resources/list and resources/templates/list show what this token may read.`, {
    code: "resource_not_found",
    uri: shown,
  });
}
