/**
 * AppError is the one error type that crosses layers. Handlers throw it; the RPC layer turns it into a
 * JSON-RPC error (src/rpc/message.ts toJsonRpcError) and the MCP layer into an isError tool result. Codes and
 * messages come from generated/errors.ts (components/errors in openrpc.json); docs/errors.md explains them.
 */
import { errorTable, type ErrorName } from "../generated/errors.js";

export type { ErrorName };

export interface ErrorDetails {
  field?: string;
  expected?: string;
  retry_after_seconds?: number;
  scope?: string;
  position?: number;
  [key: string]: unknown;
}

export class AppError extends Error {
  readonly name = "AppError";
  constructor(
    readonly errorName: ErrorName,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }

  get code(): number {
    return errorTable[this.errorName].code;
  }

  get retryable(): boolean {
    // Declared once, in components/errors of the spec: only failures a retry can fix say retryable.
    return errorTable[this.errorName].data.retryable;
  }

  /** The HTTP status a direct JSON-RPC call answers with (x-http-status in the spec; tool-level failures stay 200). */
  get httpStatus(): number {
    return errorTable[this.errorName].httpStatus;
  }

  /** The JSON-RPC `data` member: stable code, retryability, then details. */
  toData(): Record<string, unknown> {
    return { code: this.errorName, retryable: this.retryable, ...this.details };
  }
}

export const invalidParams = (field: string, expected: string, message?: string) =>
  new AppError("invalid_params", message ?? `${field}: expected ${expected}`, { field, expected });

export const notFound = (resource: string, field: string, id: unknown) =>
  new AppError("not_found", `${field}: no ${resource} with id ${JSON.stringify(id)} exists for this user. List the user's ${resource}s to find the right id.`, {
    field,
    expected: `the id of one of the user's ${resource}s`,
  });

export const conflict = (field: string, message: string) => new AppError("conflict", message, { field });

/** @public What a generated handler stub throws (codegen/emit-registry.ts writes the import). */
export const notImplemented = (tool: string) =>
  new AppError("not_implemented", `${tool} is declared in the contract but not implemented on this server yet. Do not retry.`);

/**
 * A bug of the server, not of the call: retrying it unchanged would fail the same way, so it is not
 * retryable, and it promises nothing about a write (a failure after COMMIT is possible).
 */
export const internalError = () =>
  new AppError(
    "internal_error",
    "The server failed unexpectedly: a fault of the server, not of the arguments, and retrying the same call is unlikely to help. Tell the user. A write retried with the same idempotency_key is never made twice.",
  );

/** The database could not take the call now (busy or unreachable): the same call, same key, may succeed later. */
export const unavailable = (retryAfterSeconds: number, why: string) =>
  new AppError("unavailable", `${why} Retry in ${retryAfterSeconds} s with the same arguments and the same idempotency_key: a write is made at most once.`, {
    retry_after_seconds: retryAfterSeconds,
  });
