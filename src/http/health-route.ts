/**
 * GET /healthz: the process is alive (200 while it answers at all).
 * GET /readyz: the process can serve: the database answers, no migration is pending, the audit's row
 * capture is whole (made whole again here when no migration is pending: src/db/migrate.ts#repairRowCapture),
 * on Postgres the change listener is connected, and the process is not shutting down. 200 or 503 with the name of each
 * check and its state, never data. No token and no Host check: load balancers and orchestrators probe
 * by address.
 */
import express, { type Router } from "express";
import type { Knex } from "knex";
import type { ChangeBus } from "../events/bus.js";
import { pendingMigrations, repairRowCapture } from "../db/migrate.js";
import type { Logger } from "../log.js";
import { sharedByProcesses } from "../db/engine.js";

export interface HealthDeps {
  db: Knex;
  bus: ChangeBus;
  /** True once shutdown began: the load balancer should stop sending new requests. */
  draining: () => boolean;
  /** Where a repair of the row capture is told. */
  log?: Logger;
}

/** A probe must answer even when the pool is stuck: each check gets this long. */
const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export type ReadyChecks = Record<"database" | "migrations" | "capture" | "listener" | "shutdown", string>;
type DatabaseChecks = Pick<ReadyChecks, "database" | "migrations" | "capture">;

async function databaseChecks(db: Knex, log?: Logger): Promise<DatabaseChecks> {
  try {
    await withTimeout(db.raw("select 1"));
    const pending = await withTimeout(pendingMigrations(db));
    const capture = await withTimeout(repairRowCapture(db));
    if (capture.repaired) log?.error("row_capture_repaired", { by: "readyz" });
    return {
      database: "ok",
      migrations: pending > 0 ? `${pending} pending` : "ok",
      capture: capture.gaps.length > 0 ? `missing for ${capture.gaps.length} tables` : "ok",
    };
  } catch (err) {
    return { database: err instanceof Error && err.message === "timeout" ? "timeout" : "unreachable", migrations: "unknown", capture: "unknown" };
  }
}

/** Probes arriving within this long of a database check share it: /readyz cannot load the database. */
const DATABASE_CHECK_REUSE_MS = 1000;

export async function readiness(
  deps: HealthDeps & { recent?: { at: number; result: Promise<DatabaseChecks> } },
): Promise<{ ready: boolean; checks: ReadyChecks }> {
  const now = Date.now();
  if (!deps.recent || now - deps.recent.at >= DATABASE_CHECK_REUSE_MS) deps.recent = { at: now, result: databaseChecks(deps.db, deps.log) };
  const checks: ReadyChecks = { ...(await deps.recent.result), listener: "ok", shutdown: deps.draining() ? "draining" : "no" };
  if (!sharedByProcesses(deps.db)) checks.listener = "not used";
  else if (!deps.bus.listening()) checks.listener = "disconnected";
  const ready =
    checks.database === "ok" && checks.migrations === "ok" && checks.capture === "ok" && checks.listener !== "disconnected" && checks.shutdown === "no";
  return { ready, checks };
}

export function healthRouter(deps: HealthDeps): Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "alive" });
  });
  const state: HealthDeps & { recent?: { at: number; result: Promise<DatabaseChecks> } } = { ...deps };
  router.get("/readyz", (_req, res) => {
    void readiness(state).then(({ ready, checks }) => {
      res.setHeader("Cache-Control", "no-store");
      res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not ready", checks });
    });
  });
  return router;
}
