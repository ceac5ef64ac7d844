/**
 * Prometheus metrics through prom-client (the maintained Node client; the text format and the process
 * defaults are its job). One registry per server instance, so tests can run several in one process.
 *
 * Names and labels follow the OpenTelemetry MCP semantic conventions where they exist, in their
 * Prometheus spelling (dots become underscores, seconds get the unit suffix):
 *   mcp_server_operation_duration_seconds{mcp_method_name, gen_ai_tool_name, error_type}
 * and otherwise are this server's own (finance_mcp_…). Tool names come from the spec and error types from
 * its error table, so label values are bounded; no user data is ever a label.
 *
 * Off (METRICS=off, the default), nothing here is created and no call is wrapped: the hot path pays
 * nothing. On, a tool call costs two child lookups and an observation.
 */
import type { Registry } from "prom-client";
import type { Knex } from "knex";
import { AppError } from "../errors.js";
import { ProtocolError } from "../rpc/protocol-error.js";
import { AwaitingConfirmation } from "../writes/confirm.js";
import type { Dispatch } from "../rpc/dispatch.js";
import type { LimitName, RateLimits } from "../limits/types.js";
import { toolsByName } from "../../generated/registry.js";
import { poolMax } from "../db/engine.js";
import { poolStats, type DbWatch } from "../db/watch.js";

export interface Metrics {
  registry: Registry;
  /** One HTTP request ended (every route but the probes and /metrics). */
  countRequest(method: string, path: string, status: number): void;
  instrumentDispatch(dispatch: Dispatch): Dispatch;
  instrumentLimits(limits: RateLimits): RateLimits;
}

const TOKENS_PATH = "/api/v1/mcp-tokens";
const ROUTES = new Set(["/api/v1/mcp", "/api/v1/mcp/read", "/api/v1/mcp/sse", "/api/v1/mcp/sse/messages", "/api/v1/openrpc.json", TOKENS_PATH]);
const KNOWN_METHODS = new Set(["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]);

/** Tool calls are fast (the median is well under 10 ms); the buckets reach the 30 s a client waits. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** error.type of a failed call: the spec's error name, the JSON-RPC code of a protocol error, or _OTHER. */
export function errorType(err: unknown): string {
  if (err instanceof AppError) return err.errorName;
  if (err instanceof AwaitingConfirmation) return "input_required";
  if (err instanceof ProtocolError) return String(err.code);
  return "_OTHER";
}

/** Loads prom-client only here, with METRICS=on: a server without metrics never loads it. */
export async function createMetrics(deps: {
  db: Knex;
  openStreams: () => number;
  tokenCache?: { stats(): { size: number; hits: number; misses: number; invalidations: number } };
  watch?: DbWatch;
}): Promise<Metrics> {
  const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = await import("prom-client");
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const duration = new Histogram({
    name: "mcp_server_operation_duration_seconds",
    help: "Duration of tool calls (OpenTelemetry mcp.server.operation.duration).",
    labelNames: ["mcp_method_name", "gen_ai_tool_name", "error_type"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const calls = new Counter({
    name: "finance_mcp_tool_calls_total",
    help: "Tool calls by tool and outcome: ok, tool_error (error_type: the error code) or protocol_error.",
    labelNames: ["gen_ai_tool_name", "outcome", "error_type"] as const,
    registers: [registry],
  });
  const writes = new Counter({
    name: "finance_mcp_writes_total",
    help: "Successful write tool calls by status: committed, replayed (idempotent retry) or dry_run.",
    labelNames: ["gen_ai_tool_name", "status"] as const,
    registers: [registry],
  });
  const rejected = new Counter({
    name: "finance_mcp_rate_limit_rejections_total",
    help: "Requests refused by a rate limit (mcp: JSON-RPC messages, sse: stream connects, tokens: token creations).",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  for (const limit of ["mcp", "sse", "tokens"] as const) rejected.labels(limit).inc(0);
  const requests = new Counter({
    name: "finance_mcp_http_requests_total",
    help: "HTTP requests by route and status: protocol-level refusals (401, 403, 406, 413, 429, 400) show here before any tool runs.",
    labelNames: ["http_request_method", "http_route", "http_response_status_code"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "finance_mcp_sse_streams",
    help: "Open SSE streams of this process.",
    registers: [registry],
    collect() {
      this.set(deps.openStreams());
    },
  });
  new Gauge({
    name: "finance_mcp_db_pool_connections",
    help: "Database pool of this process: connections in use, idle, and acquisitions waiting.",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const pool = poolStats(deps.db);
      this.labels("used").set(pool.used);
      this.labels("idle").set(pool.free);
      this.labels("pending").set(pool.pending);
    },
  });
  const watch = deps.watch;
  const seen = new Map<string, number>();
  if (watch) {
    new Gauge({
      name: "finance_mcp_write_locks",
      help: "Writes of this process waiting for their user's write lock (their transaction begun) and holding it (until the transaction ends).",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const locks = watch.writeLocks();
        this.labels("waiting").set(locks.waiting);
        this.labels("held").set(locks.holding);
      },
    });
    new Gauge({
      name: "finance_mcp_write_lock_oldest_held_seconds",
      help: "How long the oldest write of this process has held its user's write lock (0 when none does): a stuck write shows here.",
      registers: [registry],
      collect() {
        this.set(watch.writeLocks().oldestHeldMs / 1000);
      },
    });
    new Counter({
      name: "finance_mcp_db_bounds_reached_total",
      help: "Calls answered unavailable because a bound of request work was reached: pool (no connection in time), lock, statement, idle_transaction (DATABASE_*_TIMEOUT_MS).",
      labelNames: ["bound"] as const,
      registers: [registry],
      // The watch counts; the counter catches up with it at each scrape.
      collect() {
        for (const [bound, n] of Object.entries(watch.boundsReached())) {
          this.labels(bound).inc(n - (seen.get(bound) ?? 0));
          seen.set(bound, n);
        }
      },
    });
  }
  new Gauge({
    name: "finance_mcp_token_cache",
    help: "Verified tokens cached by this process (Postgres): entries now; hits, misses and invalidations (NOTIFYs of a user's token change) since start.",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const stats = deps.tokenCache?.stats();
      if (!stats) return;
      this.labels("entries").set(stats.size);
      this.labels("hits").set(stats.hits);
      this.labels("misses").set(stats.misses);
      this.labels("invalidations").set(stats.invalidations);
    },
  });
  new Gauge({
    name: "finance_mcp_db_pool_max",
    help: "Largest size of the database pool of this process.",
    registers: [registry],
    collect() {
      this.set(poolMax(deps.db));
    },
  });

  // The successful call's series of each tool, looked up once (prom-client hashes the labels per lookup).
  const okSeries = new Map<string, { duration: ReturnType<typeof duration.labels>; calls: ReturnType<typeof calls.labels> }>();
  const okOf = (tool: string) => {
    let s = okSeries.get(tool);
    if (!s) okSeries.set(tool, (s = { duration: duration.labels("tools/call", tool, ""), calls: calls.labels(tool, "ok", "") }));
    return s;
  };

  return {
    registry,
    countRequest(method, path, status) {
      // Routes, not paths: a path is the caller's text (OpenTelemetry http.route).
      const route = ROUTES.has(path) ? path : path.startsWith(`${TOKENS_PATH}/`) ? `${TOKENS_PATH}/{token_id}` : "_other";
      requests.labels(KNOWN_METHODS.has(method) ? method : "_OTHER", route, String(status)).inc();
    },
    instrumentDispatch(dispatch) {
      return async (tool, params, call) => {
        const start = performance.now();
        try {
          const result = await dispatch(tool, params, call);
          const ok = okOf(tool); // dispatch succeeded, so tool is a name from the spec
          ok.duration.observe((performance.now() - start) / 1000);
          ok.calls.inc();
          const status = result.status;
          if (typeof status === "string" && toolsByName.get(tool)?.kind === "write") writes.labels(tool, status).inc();
          return result;
        } catch (err) {
          const type = errorType(err);
          // An unknown tool name is the caller's text: it is not a label value.
          const name = toolsByName.has(tool) ? tool : "_unknown";
          duration.labels("tools/call", name, type).observe((performance.now() - start) / 1000);
          const outcome =
            err instanceof AppError
              ? "tool_error"
              : err instanceof ProtocolError
                ? "protocol_error"
                : err instanceof AwaitingConfirmation
                  ? "input_required"
                  : "internal_error";
          calls.labels(name, outcome, type).inc();
          throw err;
        }
      };
    },
    instrumentLimits(limits) {
      return {
        ...limits,
        async consume(name: LimitName, key: string) {
          const decision = await limits.consume(name, key);
          if (!decision.allowed) rejected.labels(name).inc();
          return decision;
        },
      };
    },
  };
}
