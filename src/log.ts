/**
 * Structured logs on stderr through pino (fast, well kept, with path redaction): JSON lines, or with
 * LOG_FORMAT=pretty one coloured line per event through pino-pretty, for people reading a terminal.
 *
 * Request scope: the HTTP layer opens a scope per request (request id, then the user id and the tool once
 * known, src/http/request-scope.ts); every line logged with that request_id also carries the scope's
 * tool and user_id, so code deep in a request only passes the request id it already has. Lines never
 * carry argument values, headers or secrets: the code does not log them, and redaction is a second line
 * of defence.
 */
import { createRequire } from "node:module";
import { pino } from "pino";
import type { PrettyOptions } from "pino-pretty";

/** pino-pretty, loaded only for LOG_FORMAT=pretty: a JSON-logging server never loads it. */
function prettyStream(options: PrettyOptions): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)("pino-pretty") as (o: PrettyOptions) => pino.DestinationStream;
  return pretty(options);
}

export interface Logger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  /** Lines logged with this request id carry the scope's fields until endRequest (optional: test loggers). */
  beginRequest?(scope: RequestScope): void;
  endRequest?(scope: RequestScope): void;
}

/** What a request's log lines say about it: filled in as the request goes (user after the token check). */
export interface RequestScope {
  request_id: string;
  tool?: string;
  user_id?: string;
}

const REDACT = ["token", "*.token", "password", "*.password", "authorization", "*.authorization", "headers", "params", "arguments", "*.params", "*.arguments"];

/** The event of the one line every HTTP request writes when it ends. */
export const REQUEST_EVENT = "request";

export type LogLevel = "silent" | "error" | "info";
export type LogFormat = "json" | "pretty";

export function createLogger(level: LogLevel, format: LogFormat = "json"): Logger {
  const destination =
    format === "pretty"
      ? prettyStream({
          destination: 2,
          sync: true,
          colorize: process.stderr.isTTY === true,
          messageKey: "event",
          ignore: "pid,hostname",
          translateTime: "SYS:HH:MM:ss.l",
        })
      : pino.destination(2);
  const log = pino({ level, base: undefined, messageKey: "event", redact: { paths: REDACT, censor: "[redacted]" } }, destination);
  // The per-request line (src/http/request-scope.ts) has fixed fields (ids, method, path, status, time)
  // and no secret, so it skips redaction, whose wildcard paths cost ~7 µs a line (measured with 50,000
  // lines: 10.7 µs with redaction, 3.9 µs without): that line is written on every request.
  const plain = pino({ level, base: undefined, messageKey: "event" }, destination);
  const scopes = new Map<string, RequestScope>();
  // In JSON, that line is written here as pino would write it (level, time, the scope's and the line's
  // fields, event), one JSON.stringify and one write to pino's destination, without pino's per-line
  // machinery (chindings, hooks, its serializer): about a third of the logging cost of a whoami
  // (docs/decisions.md#request-line-direct). Pretty output still goes through pino.
  const infoLevel = log.levels.values.info!;
  const requestLine =
    format === "json" && plain.isLevelEnabled("info")
      ? (fields: Record<string, unknown>) => {
          const id = fields.request_id;
          const scope = typeof id === "string" ? scopes.get(id) : undefined;
          destination.write(`${JSON.stringify({ level: infoLevel, time: Date.now(), ...scope, ...fields, event: REQUEST_EVENT })}\n`);
        }
      : undefined;
  const withScope = (fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined => {
    const id = fields?.request_id;
    if (typeof id !== "string") return fields;
    const scope = scopes.get(id);
    return scope ? { ...scope, ...fields } : fields;
  };
  return {
    info: (event, fields) => {
      if (!log.isLevelEnabled("info")) return;
      if (event !== REQUEST_EVENT) return log.info(withScope(fields) ?? {}, event);
      if (requestLine) return requestLine(fields ?? {});
      plain.info(withScope(fields) ?? {}, event);
    },
    error: (event, fields) => log.error(withScope(fields) ?? {}, event),
    beginRequest: (scope) => void scopes.set(scope.request_id, scope),
    endRequest: (scope) => void scopes.delete(scope.request_id),
  };
}
