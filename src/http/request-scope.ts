/**
 * One scope per HTTP request (src/log.ts): its id, then the user and the tool once known, and one
 * `request` log line when the response ends (method, path, status, milliseconds; never the query,
 * headers or body).
 *
 * The id comes from the caller when it sends one: the trace id of a W3C `traceparent`, else a sane
 * `X-Request-Id`; otherwise a new UUID. It is echoed in the X-Request-Id response header.
 */
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { REQUEST_EVENT, type Logger, type RequestScope } from "../log.js";
import { toolsByName } from "../../generated/registry.js";
import type { Metrics } from "../metrics/metrics.js";

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}(-.*)?$/;
// At most 60: the audit log keeps the request id of each write (audit_log.request_id is 60 characters).
const REQUEST_ID = /^[\w.:@/+=-]{1,60}$/;

export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const traceparent = headers.traceparent;
  if (typeof traceparent === "string") {
    const m = TRACEPARENT.exec(traceparent.trim().toLowerCase());
    // All-zero trace ids are invalid by the W3C spec.
    if (m && !/^0+$/.test(m[1]!)) return m[1]!;
  }
  const given = headers["x-request-id"];
  if (typeof given === "string" && REQUEST_ID.test(given)) return given;
  return randomUUID();
}

/**
 * A calendar feed's secret, wherever it stands in a path (routing ignores case, so a wrong path may hold
 * one too; no word boundary: after decoding, any letter may stand before it).
 */
const CALENDAR_SECRET = /cal_[A-Za-z0-9_-]{16,}/gi;
const ESCAPES = /(?:%[\dA-Fa-f]{2})+/g;
const ASCII_ESCAPE = /%[0-7][\dA-Fa-f]/g;

/**
 * The path with its percent-escapes decoded, as routing decodes a parameter: `/api/v1/calendar/%63al_…`
 * reaches the feed, so the secret must be found in the decoded text. Three passes for double encoding; a
 * run that is not UTF-8 keeps only its ASCII escapes decoded (a secret is ASCII). Paths without `%`
 * (nearly all) are not copied.
 */
export function decodedPath(path: string): string {
  let out = path;
  for (let pass = 0; pass < 3 && out.includes("%"); pass++) {
    const next = out.replace(ESCAPES, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run.replace(ASCII_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
      }
    });
    if (next === out) break;
    out = next;
  }
  return out;
}

/** The path as the request log writes it: decoded, every calendar secret replaced, then cut to 200 characters. */
export function loggedPath(path: string): string {
  return decodedPath(path).replace(CALENDAR_SECRET, "(secret)").slice(0, 200);
}

export function requestScope(log: Logger, metrics?: Pick<Metrics, "countRequest">): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const scope: RequestScope = { request_id: requestIdFrom(req.headers) };
    res.locals.scope = scope;
    res.setHeader("X-Request-Id", scope.request_id);
    log.beginRequest?.(scope);
    const start = performance.now();
    res.once("close", () => {
      log.info(REQUEST_EVENT, {
        request_id: scope.request_id,
        method: req.method,
        // A calendar feed's path holds its secret (src/web/calendar-feed-route.ts): never logged, however
        // encoded. Replaced before the cut, so that no part of one is left at the end.
        path: loggedPath(req.path),
        status: res.statusCode,
        ms: Math.round((performance.now() - start) * 10) / 10,
      });
      log.endRequest?.(scope);
      metrics?.countRequest(req.method, req.path, res.statusCode);
    });
    next();
  };
}

/** The request's scope (a fresh one when no middleware opened it, e.g. a route mounted on its own). */
export function scopeOf(res: Response): RequestScope {
  return ((res.locals.scope as RequestScope | undefined) ??= { request_id: randomUUID() });
}

/** The tool a JSON-RPC message calls, when it names one of ours (a direct call or MCP tools/call). */
export function toolOf(msg: { method: string; params?: unknown }): string | undefined {
  if (toolsByName.has(msg.method)) return msg.method;
  if (msg.method === "tools/call" && msg.params && typeof msg.params === "object") {
    const name = (msg.params as { name?: unknown }).name;
    if (typeof name === "string" && toolsByName.has(name)) return name;
  }
  return undefined;
}
