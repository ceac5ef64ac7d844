/**
 * Builds the HTTP application from its parts. main.ts uses it to serve; tests use it to start a server
 * on a fresh database. Nothing here knows about a particular tool.
 */
import { sideConnection } from "./db/side.js";
import { readFileSync } from "node:fs";
import express, { type Express } from "express";
import type { Knex } from "knex";
import { configWarnings, type Config } from "./config.js";
import { createChangeBus, type ChangeBus } from "./events/bus.js";
import { createTokenCache, type TokenCache } from "./auth/token-cache.js";
import { healthRouter } from "./http/health-route.js";
import { mcpEndpoint } from "./http/mcp-route.js";
import { setupRouter } from "./web/setup-page.js";
import { directoryRouter } from "./web/directory-pages.js";
import { mcpCors, mcpCorsIfOrigin, publicCors } from "./http/cors.js";
import { challengeContext, hostAndOriginGuard, readEndpoint } from "./http/guards.js";
import { DEFAULT_KEEPALIVE_MS, SSE_PATH, sseRouter } from "./http/sse-route.js";
import { metricsRouter } from "./http/metrics-route.js";
import { requestScope } from "./http/request-scope.js";
import { createMetrics, type Metrics } from "./metrics/metrics.js";
import { SseStreams } from "./mcp/sse.js";
import { tokensRouter } from "./http/tokens-route.js";
import { oauthRouter } from "./http/oauth-route.js";
import { lastErrors } from "./http/last-error.js";
import { pagesRouter } from "./web/pages-route.js";
import { homeRouter } from "./web/home-page.js";
import { privacyRouter } from "./web/privacy-page.js";
import { webKey } from "./web/secret.js";
import { importPageRouter } from "./web/import-page.js";
import { bankPageRouter } from "./web/bank-page.js";
import { leavePageRouter } from "./web/leave-page.js";
import { calendarRouter } from "./web/calendar-feed-route.js";
import { turnGateFor } from "./http/turns.js";
import { blocksEventLoop, sharedByProcesses } from "./db/engine.js";
import type { IdSource } from "./db/ids.js";
import { createRateLimits } from "./limits/limiter.js";
import type { RateLimits } from "./limits/types.js";
import { createLogger, type Logger } from "./log.js";
import { createMcpMethods } from "./mcp/methods.js";
import { createResourceRegistry } from "./resources/registry.js";
import { createDispatch, type Dispatch } from "./rpc/dispatch.js";
import { handlers } from "../generated/tool-modules.js";
import { createWritePipeline } from "./writes/pipeline.js";
import { createDbWatch } from "./db/watch.js";
import { ensureRowCapture, rowCaptureGaps } from "./db/row-capture.js";
import { packagePath } from "./package-root.js";
import { MCP_PATH, MCP_READ_PATH } from "./oauth/urls.js";

/** The published contract: openrpc.json as codegen transforms it for client generators (codegen/emit-published.ts). */
export const OPENRPC_PATH = packagePath("clients/openrpc/openrpc.json");

export interface Services {
  config: Config;
  db: Knex;
  log: Logger;
  bus: ChangeBus;
  limits: RateLimits;
  dispatch: Dispatch;
  openrpc: unknown;
  now: () => Date;
  /** Set when shutdown begins (src/serve.ts): /readyz answers 503 and new SSE streams are refused. */
  lifecycle: { draining: boolean };
  /** The open SSE streams of this process (told to reconnect on shutdown, counted by /metrics). */
  streams: SseStreams;
  /** Present when METRICS=on. */
  metrics?: Metrics;
  /** Signs web session cookies and CSRF fields (src/web/secret.ts). */
  webKey: Buffer;
  /** Postgres: verified tokens kept in the process, dropped on NOTIFY (src/auth/token-cache.ts). */
  tokenCache?: TokenCache;
  /** Where authentication and the per-call limits run: on SQLite a second connection (src/db/side.ts). */
  side: Knex;
}

export async function createServices(config: Config, db: Knex, options: { now?: () => Date; ids?: IdSource; log?: Logger } = {}): Promise<Services> {
  const log = options.log ?? createLogger(config.logLevel, config.logFormat);
  const now = options.now ?? (() => new Date());
  for (const warning of configWarnings(config)) log.error("config_warning", { warning });
  const key = await webKey(db, config, now());
  // SQLite: the audit's row capture triggers, made from the schema as migrated (src/db/row-capture.ts).
  // Checked again after: a write whose capture is missing is refused (docs/decisions.md#capture-checked-in-the-write).
  await ensureRowCapture(db);
  const gaps = await rowCaptureGaps(db);
  if (gaps.length > 0) log.error("row_capture_missing", { missing: gaps.join(", ") });
  const bus = await createChangeBus(db, log);
  const streams = new SseStreams();
  // Metrics off: nothing is wrapped, so the per-call path is exactly what it is without them.
  const tokenCache = sharedByProcesses(db) && config.tokenCache === "on" ? createTokenCache(bus, { db }) : undefined;
  // What requests hold and wait for in the database: /metrics, and the log line of a bound reached.
  const watch = createDbWatch();
  const metrics = config.metrics === "on" ? await createMetrics({ db, openStreams: () => streams.size, tokenCache, watch }) : undefined;
  // Authentication and the limits never wait for another call's write transaction (src/db/side.ts).
  const side = sideConnection(db);
  let limits = createRateLimits(side, config);
  await limits.ready?.();
  if (metrics) limits = metrics.instrumentLimits(limits);
  const runWrite = createWritePipeline({ bus, watch, log });
  let dispatch = createDispatch({ db, config, handlers, runWrite, log, now, ids: options.ids, watch });
  if (metrics) dispatch = metrics.instrumentDispatch(dispatch);
  const openrpc = JSON.parse(readFileSync(OPENRPC_PATH, "utf8")) as unknown;
  return { config, db, log, bus, limits, dispatch, openrpc, now, lifecycle: { draining: false }, streams, metrics, webKey: key, tokenCache, side };
}

export interface AppOptions {
  /** Keep-alive comment interval of SSE streams (default 20 s; tests shorten it). */
  sseKeepAliveMs?: number;
}

export function createApp(services: Services, options: AppOptions = {}): Express {
  const app = express();
  app.disable("x-powered-by");
  // express hashes every response body for an ETag, POSTs included; JSON-RPC answers are never
  // revalidated, and tools/list is the largest answer, so the hash is pure cost.
  app.set("etag", false);
  // The client address behind TLS proxies (TRUST_PROXY): every per-address limit keys on req.ip.
  app.set("trust proxy", services.config.trustProxy);

  const scope = requestScope(services.log, services.metrics);
  const draining: express.RequestHandler = (req, res, next) => {
    if (!services.lifecycle.draining) return next();
    // Shutting down: this connection closes after the answer; no new stream starts here.
    res.setHeader("Connection", "close");
    if (req.method === "GET" && req.path === SSE_PATH) {
      res.setHeader("Retry-After", "1");
      res.status(503).json({ error: { code: "shutting_down", message: "This server process is shutting down: reconnect (to another process)." } });
      return;
    }
    next();
  };
  const mcp = createMcpMethods({ ...services, resources: createResourceRegistry() });
  // One gate for both transports: SQLite's synchronous work of all MCP requests shares one event loop.
  const gate = turnGateFor(blocksEventLoop(services.db));
  const endpoint = mcpEndpoint({ ...services, mcp, gate });
  const guard = hostAndOriginGuard(services.config);
  const challenge = challengeContext(services.config);

  // POST /api/v1/mcp, which every call takes, first and as one route, with the steps the middleware
  // registered below would run for it, in their order (request scope, draining, Host/Origin guard, CORS,
  // challenge context, then the endpoint's own): express no longer walks every router of the app for it
  // (docs/decisions.md#mcp-post-first). Nothing else answers a POST on this path.
  app.post(MCP_PATH, scope, draining, guard, mcpCorsIfOrigin(services.config), challenge, ...endpoint.post);
  // The read-only endpoint: the same steps, the request marked first, so its token is narrowed to read scopes.
  app.post(MCP_READ_PATH, scope, draining, guard, mcpCorsIfOrigin(services.config), readEndpoint, challenge, ...endpoint.post);

  // The published contract: chatbots and SDK generators read it without a token.
  app.options("/api/v1/openrpc.json", publicCors);
  app.get("/api/v1/openrpc.json", publicCors, (_req, res) => {
    res.json(services.openrpc);
  });

  // Probes and scrapes: no token, no Host check, no request log line.
  app.use(healthRouter({ db: services.db, bus: services.bus, draining: () => services.lifecycle.draining, log: services.log }));
  if (services.metrics) app.use(metricsRouter(services.config, services.metrics));

  app.use(scope);
  app.use(draining);
  // CORS for allowed origins on every MCP path (src/http/cors.ts); the guard first, so others keep their 403.
  app.use(MCP_PATH, guard, mcpCors(services.config), challenge);
  // GET / (the server introduces itself), and a page for a browser that opens the MCP URL.
  // While the server has no user: / offers to create the owner account (src/web/setup-page.ts).
  app.use(setupRouter(services));
  app.use(homeRouter(services));
  app.use(privacyRouter(services));
  app.use(directoryRouter(services));
  app.use(endpoint.router);
  app.use(sseRouter({ ...services, mcp, gate, keepAliveMs: options.sseKeepAliveMs ?? DEFAULT_KEEPALIVE_MS, streams: services.streams }));
  app.use(tokensRouter(services));
  app.use(oauthRouter(services));
  app.use(calendarRouter(services));
  app.use(pagesRouter(services));
  app.use(importPageRouter(services));
  app.use(bankPageRouter(services));
  app.use(leavePageRouter(services));

  app.use((_req, res) => {
    res.status(404).json({ error: { code: "not_found", message: "No such endpoint. The MCP endpoint is POST /api/v1/mcp." } });
  });
  app.use(lastErrors(services.log));
  return app;
}

export async function closeServices(s: Services): Promise<void> {
  s.tokenCache?.close();
  await s.bus.close();
  await s.limits.close();
  if (s.side !== s.db) await s.side.destroy();
}
