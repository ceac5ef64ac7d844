/**
 * Starting and stopping one server process: database, migrations, knowledge base, HTTP server, and the
 * graceful shutdown that SIGTERM/SIGINT trigger (src/main.ts; the tests' server processes use the same).
 *
 * Shutdown, in order:
 *   1. draining: /readyz answers 503, new SSE streams get 503, answers carry `Connection: close`;
 *   2. the listening socket closes (no new connections); idle keep-alive connections are closed;
 *   3. every SSE stream gets a `retry:` field and is ended, so its client reconnects (to another process);
 *   4. in-flight requests run to their end: a write's transaction commits or rolls back, never half;
 *   5. after the last connection ends, or SHUTDOWN_GRACE_SECONDS at the latest (then the remaining
 *      connections are cut; an unfinished transaction is rolled back by the database), the change
 *      listener, the rate limiter and the pool close and the process exits (0 clean, 1 forced).
 */
import { createServer, type Server } from "node:http";
import { startBankSchedule } from "./banks/schedule.js";
import type { AddressInfo } from "node:net";
import type { Config } from "./config.js";
import { closeServices, createApp, createServices, type AppOptions, type Services } from "./app.js";
import { sqliteFileOf, startupDb } from "./db/engine.js";
import { createDb } from "./db/knex.js";
import { acquireServerLock, DatabaseInUseError, type ServerLock } from "./db/server-lock.js";
import { DatabasePathError, prepareSqliteFile } from "./db/sqlite-file.js";
import { migrateLatest } from "./db/migrate.js";
import { withStartupLock } from "./db/startup-lock.js";
import { seedKnowledgeBase } from "./domain/knowledge/store.js";
import type { Logger } from "./log.js";
import { purgeExpiredKeys } from "./writes/idempotency.js";
import { purgeUsedRequestStates } from "./writes/request-state.js";
import { purgeUsedPreviews } from "./writes/preview.js";
import { pruneSessions } from "./mcp/sessions.js";
import { setupCodeAtStart } from "./auth/setup-code.js";

const PURGE_EVERY_MS = 10 * 60_000;
/** What SSE clients are told to wait before reconnecting (the `retry:` field, milliseconds). */
export const SHUTDOWN_RETRY_MS = 1000;

export interface RunningServer {
  services: Services;
  server: Server;
  port: number;
  /** The one-time setup code when the database has no user yet (src/auth/setup-code.ts): src/main.ts logs it. */
  setupCode?: string;
  /** Graceful shutdown; resolves with the exit code (0: every connection ended within the grace period). */
  stop(reason: string): Promise<number>;
}

/**
 * One server process per SQLite file (src/db/server-lock.ts); Postgres takes any number. The file's
 * folder is made first (src/db/sqlite-file.ts); a lock file that still cannot be opened is a path problem.
 */
function serverLock(databaseUrl: string): ServerLock | undefined {
  const path = sqliteFileOf(databaseUrl);
  if (path === undefined) return undefined;
  prepareSqliteFile(path);
  try {
    return acquireServerLock(path);
  } catch (err) {
    if (err instanceof DatabaseInUseError) throw err;
    throw new DatabasePathError(path, `its lock file cannot be opened (${(err as { code?: string }).code ?? (err as Error).message})`);
  }
}

export async function startServer(config: Config, options: { log?: Logger; app?: AppOptions } = {}): Promise<RunningServer> {
  const lock = serverLock(config.databaseUrl);
  try {
    return await startLocked(config, options, lock);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function startLocked(config: Config, options: { log?: Logger; app?: AppOptions }, lock: ServerLock | undefined): Promise<RunningServer> {
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax, bounds: config.databaseBounds });
  // Start-up work runs without the bounds of request work, where the engine allows (src/db/engine.ts#startupDb).
  const setup = startupDb(config.databaseUrl, db);
  try {
    await withStartupLock(setup, async () => {
      await migrateLatest(setup);
      await seedKnowledgeBase(setup);
    });
  } finally {
    if (setup !== db) await setup.destroy();
  }
  const services = await createServices(config, db, { log: options.log });
  const setupCode = await setupCodeAtStart(db, new Date());
  const server = createServer(createApp(services, options.app));
  applyKeepAlive(server, config.keepAliveSeconds);
  // Expired idempotency keys, the used requestStates' nonces and preview ids once they have expired, and MCP
  // sessions past their life (on a schedule, not only when their token initializes again: issue 51).
  const purgeAll = (now: Date) => Promise.all([purgeExpiredKeys(db, now), purgeUsedRequestStates(db, now), purgeUsedPreviews(db, now), pruneSessions(db, now)]);
  const purge = setInterval(() => void purgeAll(new Date()).catch(() => undefined), PURGE_EVERY_MS);
  purge.unref();
  await purgeAll(new Date());
  // Bank connections synced every BANK_SYNC_INTERVAL, each by one process only (src/banks/schedule.ts).
  const stopBanks = startBankSchedule({ db, dispatch: services.dispatch, log: services.log, intervalSeconds: config.banks.syncIntervalSeconds });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  let stopping: Promise<number> | undefined;
  const stop = (reason: string) => {
    stopBanks();
    stopping ??= shutdown(services, server, purge, reason).finally(() => lock?.release());
    return stopping;
  };
  return { services, server, port, stop, ...(setupCode ? { setupCode } : {}) };
}

/**
 * Idle keep-alive connections stay open KEEP_ALIVE_TIMEOUT_SECONDS (default 65, above the 60 s idle time of
 * common load balancers and clients): the side that closes an idle socket must be the client, or its next
 * request may go out on a socket the server has just closed. headersTimeout must exceed it (Node's rule).
 */
export function applyKeepAlive(server: Server, seconds: number): void {
  server.keepAliveTimeout = seconds * 1000;
  server.headersTimeout = seconds * 1000 + 1000;
}

async function shutdown(services: Services, server: Server, purge: NodeJS.Timeout, reason: string): Promise<number> {
  const { log, config } = services;
  const graceMs = config.shutdownGraceSeconds * 1000;
  services.lifecycle.draining = true;
  clearInterval(purge);
  log.info("stopping", { reason, grace_seconds: config.shutdownGraceSeconds, sse_streams: services.streams.size });

  const allClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  services.streams.reconnectAll(SHUTDOWN_RETRY_MS);
  // A keep-alive connection is idle between requests; close each as soon as it is (Connection: close
  // already ends the ones whose request is still running).
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const forced = await Promise.race([
    allClosed.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), graceMs);
    }),
  ]);
  clearInterval(idle);
  clearTimeout(timer);
  if (forced) {
    log.error("shutdown_grace_exceeded", { grace_seconds: config.shutdownGraceSeconds });
    server.closeAllConnections();
  }
  await closeServices(services).catch(() => undefined);
  await services.db.destroy().catch(() => undefined);
  log.info("stopped", { reason, forced });
  return forced ? 1 : 0;
}

/** SIGTERM and SIGINT stop the server gracefully, then exit; a second signal does not cut it short. */
export function stopOnSignals(running: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals) => {
    // Past the grace period and the closing of the pool, exit anyway.
    setTimeout(() => process.exit(1), running.services.config.shutdownGraceSeconds * 1000 + 5000).unref();
    void running.stop(signal).then((code) => process.exit(code));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
