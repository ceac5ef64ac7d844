/**
 * The answer to an error no route handled: express's default handler would print the error to stderr,
 * outside the JSON log, and a path it failed to decode (`URIError: Failed to decode param '%FF%63al_…'`)
 * quotes the path there, calendar secret included. A 4xx (a malformed path) is answered with its status
 * and logged only by the request line, whose path is redacted (request-scope.ts); anything else is logged
 * by kind and frames (describeForLog, never its message) and answered 500.
 */
import type { ErrorRequestHandler } from "express";
import { describeForLog } from "../db/errors.js";
import type { Logger } from "../log.js";

export function lastErrors(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      res.status(status).json({ error: { code: "bad_request", message: "The request's path or body could not be read." } });
      return;
    }
    const { error, driver_code, stack } = describeForLog(err);
    // describeForLog keeps the message of an error without a driver code: only its name is logged here.
    log.error("http_error", { error: err instanceof Error ? err.name : error, driver_code, stack });
    res.status(500).json({ error: { code: "internal_error", message: "The server could not complete this request." } });
  };
}
