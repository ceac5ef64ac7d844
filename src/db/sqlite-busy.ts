/**
 * SQLite's write lock held from outside (another program, a stuck CLI, a backup tool): every write then
 * waits busy_timeout in better-sqlite3's busy handler, which is synchronous and stops the event loop. One
 * write after another, 20 of them stopped the process for minutes, and a connection was reset instead of
 * answered. So after one statement has waited its whole busy_timeout, the connection's busy_timeout drops
 * to FAIL_FAST_MS: the next writes answer `unavailable` (503, Retry-After) at once, and the loop serves
 * everyone else. Once no statement has been busy for RECOVER_MS, the full wait comes back (short
 * contention, a CLI's brief write, is then waited out as before).
 */
import type Database from "better-sqlite3";
import type { Knex } from "knex";
import { isBusy } from "./errors.js";

export const BUSY_TIMEOUT_MS = 5000;
export const FAIL_FAST_MS = 50;
export const RECOVER_MS = 2000;

export class BusyBreaker {
  private readonly connections = new Set<Database.Database>();
  private timer: NodeJS.Timeout | undefined;

  /** A new pooled connection: waits the full busy_timeout, or fails fast while the lock is known held. */
  adopt(conn: Database.Database): void {
    this.connections.add(conn);
    conn.pragma(`busy_timeout = ${this.timer ? FAIL_FAST_MS : BUSY_TIMEOUT_MS}`);
  }

  /** Watches a knex instance's statement errors (knex's own queries; the write pipeline's among them). */
  watch(db: Knex): void {
    db.on("query-error", (err: unknown) => {
      if (isBusy(err)) this.busy();
    });
  }

  /** A statement found the lock held: fail fast from now until RECOVER_MS pass without another. */
  busy(): void {
    if (this.timer) clearTimeout(this.timer);
    else this.set(FAIL_FAST_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.set(BUSY_TIMEOUT_MS);
    }, RECOVER_MS);
    this.timer.unref();
  }

  get failingFast(): boolean {
    return this.timer !== undefined;
  }

  private set(ms: number): void {
    for (const conn of this.connections) {
      if (!conn.open) this.connections.delete(conn);
      else conn.pragma(`busy_timeout = ${ms}`);
    }
  }
}
