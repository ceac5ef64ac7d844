/**
 * The scheduled bank sync (docs/history/bank-connections.md): every BANK_SYNC_INTERVAL (default 6 h; the public bridge allows
 * about 24 requests a day per connection) each connection is synced once, by exactly one process however
 * many serve the database. A process claims a due connection by moving its next_sync_at on in one
 * conditional UPDATE (WHERE next_sync_at is still what it read): of several processes reading the same
 * due row, one update matches and the others change nothing, on Postgres and SQLite alike, and no lock or
 * connection is held while the bridge is read (docs/decisions.md#bank-sync-claimed-by-update).
 * The sync itself is the tool's, through the write pipeline (audited, undoable), for the connection's owner.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Dispatch } from "../rpc/dispatch.js";
import type { Logger } from "../log.js";
import { findUserById } from "../auth/users.js";

/** How often a process looks for due connections (at most; a shorter interval looks as often). */
export const SCHEDULE_TICK_MS = 5 * 60_000;
/** Connections one tick syncs at most: a tick's work stays bounded; the rest are due at the next. */
const PER_TICK = 20;

export interface ScheduleDeps {
  db: Knex;
  dispatch: Dispatch;
  log: Logger;
  intervalSeconds: number;
  now?: () => Date;
}

/** The id of the audit entries a scheduled sync writes, in place of a token's (no token made it). */
export const SCHEDULED_SYNC_TOKEN = "scheduled-bank-sync";

export interface DueConnection {
  id: string;
  user_id: string;
  next_sync_at: string;
}

/** The connections due at `now`, as read (another process may read the same rows). */
export const dueConnections = (db: Knex, now: Date): Promise<DueConnection[]> =>
  db("bank_connections").where("next_sync_at", "<=", now.toISOString()).orderBy("next_sync_at").limit(PER_TICK).select("id", "user_id", "next_sync_at");

/** Whether this process won the due row: its next_sync_at is still what was read, and is now `next`. */
export async function claimDue(db: Knex, row: DueConnection, next: string): Promise<boolean> {
  return (await db("bank_connections").where({ id: row.id, next_sync_at: row.next_sync_at }).update({ next_sync_at: next })) === 1;
}

/** Claims and syncs the connections due now; answers the ids this process synced. */
export async function runDueSyncs(deps: ScheduleDeps): Promise<string[]> {
  const now = (deps.now ?? (() => new Date()))();
  const due = await dueConnections(deps.db, now);
  const next = new Date(now.getTime() + deps.intervalSeconds * 1000).toISOString();
  const synced: string[] = [];
  for (const row of due) {
    if (!(await claimDue(deps.db, row, next))) continue;
    const user = await findUserById(deps.db, String(row.user_id));
    if (!user) continue;
    try {
      await deps.dispatch(
        "sync_bank_connections",
        { connection_id: String(row.id), idempotency_key: randomUUID() },
        {
          caller: {
            userId: user.id,
            tokenId: SCHEDULED_SYNC_TOKEN,
            tokenName: "scheduled bank sync",
            scopes: new Set(["write:transactions", "read:wallets"]),
            expiresAt: null,
            timezone: user.timezone,
            defaultCurrency: user.default_currency,
          },
          requestId: `bank-sync-${randomUUID()}`,
        },
      );
      synced.push(String(row.id));
    } catch (err) {
      // The connection's own status says what failed (list_bank_connections); the log names no value.
      deps.log.error("bank_sync_failed", { connection_id: String(row.id), error: err instanceof Error ? err.name : "unknown" });
    }
  }
  return synced;
}

/** Starts the schedule (none when the interval is 0); answers the stop function. */
export function startBankSchedule(deps: ScheduleDeps): () => void {
  if (deps.intervalSeconds <= 0) return () => undefined;
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    void runDueSyncs(deps)
      .catch((err: unknown) => deps.log.error("bank_schedule_failed", { error: err instanceof Error ? err.name : "unknown" }))
      .finally(() => (running = false));
  };
  const timer = setInterval(tick, Math.min(SCHEDULE_TICK_MS, deps.intervalSeconds * 1000));
  timer.unref();
  return () => clearInterval(timer);
}
