/**
 * Builds the HTTP application from its parts. main.ts uses it to serve; tests use it to start a server
 * on a fresh database. Nothing here knows about a particular tool.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Express } from "express";
import type { Knex } from "knex";
import type { Config } from "./config.js";
import { createChangeBus, type ChangeBus } from "./events/bus.js";
import { mcpRouter } from "./http/mcp-route.js";
import { DEFAULT_KEEPALIVE_MS, sseRouter } from "./http/sse-route.js";
import { tokensRouter } from "./http/tokens-route.js";
import { turnGateFor } from "./http/turns.js";
import { dialect } from "./db/knex.js";
import { createRateLimits } from "./limits/limiter.js";
import type { RateLimits } from "./limits/types.js";
import { createLogger, type Logger } from "./log.js";
import { createMcpMethods } from "./mcp/methods.js";
import { createDispatch, type Dispatch } from "./rpc/dispatch.js";
import { handlers } from "../generated/tool-modules.js";
import { createWritePipeline } from "./writes/pipeline.js";

export const OPENRPC_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../openrpc.json");

export interface Services {
  config: Config;
  db: Knex;
  log: Logger;
  bus: ChangeBus;
  limits: RateLimits;
  dispatch: Dispatch;
  openrpc: unknown;
  now: () => Date;
}

export async function createServices(config: Config, db: Knex, options: { now?: () => Date; log?: Logger } = {}): Promise<Services> {
  const log = options.log ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  const bus = await createChangeBus(db);
  const limits = createRateLimits(db, config);
  const runWrite = createWritePipeline({ bus });
  const dispatch = createDispatch({ db, config, handlers, runWrite, log, now });
  const openrpc = JSON.parse(readFileSync(OPENRPC_PATH, "utf8")) as unknown;
  return { config, db, log, bus, limits, dispatch, openrpc, now };
}

export interface AppOptions {
  /** Keep-alive comment interval of SSE streams (default 20 s; tests shorten it). */
  sseKeepAliveMs?: number;
}

export function createApp(services: Services, options: AppOptions = {}): Express {
  const app = express();
  app.disable("x-powered-by");
  // express hashes every response body for an ETag, POSTs included; JSON-RPC answers are never
  // revalidated, and tools/list is ~290 KB, so the hash is pure cost.
  app.set("etag", false);
  app.set("trust proxy", false);

  // The published contract: chatbots and SDK generators read it without a token.
  app.get("/api/v1/openrpc.json", (_req, res) => {
    res.json(services.openrpc);
  });

  const mcp = createMcpMethods(services);
  // One gate for both transports: SQLite's synchronous work of all MCP requests shares one event loop.
  const gate = turnGateFor(dialect(services.db));
  app.use(mcpRouter({ ...services, mcp, gate }));
  app.use(sseRouter({ ...services, mcp, gate, keepAliveMs: options.sseKeepAliveMs ?? DEFAULT_KEEPALIVE_MS }));
  app.use(tokensRouter(services));

  app.use((_req, res) => {
    res.status(404).json({ error: { code: "not_found", message: "No such endpoint. The MCP endpoint is POST /api/v1/mcp." } });
  });
  return app;
}

export async function closeServices(s: Services): Promise<void> {
  await s.bus.close();
  await s.limits.close();
}
