/**
 * Errors of the JSON-RPC envelope itself (parse error, invalid request, unknown method), as opposed to
 * AppError, which a tool raises. Codes are JSON-RPC 2.0's own.
 */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

export class ProtocolError extends Error {
  readonly name = "ProtocolError";
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly httpStatus = 200,
  ) {
    super(message);
  }
}

const DATA_CODES: Record<number, string> = {
  [PARSE_ERROR]: "parse_error",
  [INVALID_REQUEST]: "invalid_request",
  [METHOD_NOT_FOUND]: "method_not_found",
  [INVALID_PARAMS]: "invalid_params",
  [INTERNAL_ERROR]: "internal_error",
};

export function protocolError(code: number, message: string, data: Record<string, unknown> = {}, httpStatus = 200): ProtocolError {
  return new ProtocolError(code, message, { code: DATA_CODES[code] ?? "error", retryable: false, ...data }, httpStatus);
}
