/**
 * Structured JSON logs on stderr through pino (fast, well kept, with path redaction). Redaction is a
 * second line of defence: the code never logs headers, params or tokens in the first place.
 */
import { pino } from "pino";

export interface Logger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

const REDACT = ["token", "*.token", "password", "*.password", "authorization", "*.authorization", "headers"];

export function createLogger(level: "silent" | "error" | "info"): Logger {
  const log = pino({ level, base: undefined, redact: { paths: REDACT, censor: "[redacted]" } }, pino.destination(2));
  return {
    info: (event, fields) => log.info({ event, ...fields }),
    error: (event, fields) => log.error({ event, ...fields }),
  };
}
