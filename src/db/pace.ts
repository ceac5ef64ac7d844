/**
 * Gives the event loop a turn during long database work on SQLite (issue 51).
 *
 * better-sqlite3 runs each statement synchronously and knex chains a call's statements through promises,
 * so a bulk write's thousands of statements (a 5,000-row bulk edit, an undo, an import at the cap) ran
 * in microtasks without one turn of the loop: 1.3–7.3 s in which no other request was read, no timer
 * fired and SIGTERM was not handled. Every statement on a paced connection first checks how long the
 * loop has gone without a turn; past SLICE_MS (8 ms) it waits for setImmediate, so the loop runs its timers and
 * polls its sockets, then the statement runs. The pause is inside whatever transaction is open, and that
 * is safe: the SQLite pool has one connection, which the transaction holds, so no other call's statement
 * can run inside it or between its statements; the transaction still commits or rolls back whole.
 * Postgres needs none of this: there each statement waits on a socket and the loop turns anyway.
 * docs/decisions.md#bounded-at-the-cap.
 */
import type { Knex } from "knex";

/**
 * The longest stretch of statements without a turn of the loop, in milliseconds. A stretch ends at the
 * first statement past it, so the loop waits SLICE_MS plus one statement at most: statements are kept to
 * a few milliseconds each (chunks of rows), which keeps the longest block near 20 ms on a quiet machine.
 */
export const SLICE_MS = 8;

/** When the current stretch without a turn began; undefined once the loop has turned since. */
let stretchStart: number | undefined;
/** Turns given, for the tests (test/limits/bulk-event-loop.test.ts counts that long work yields). */
export const paceCounters = { turns: 0 };

/** Resolves at once within a slice; after SLICE_MS of work without a turn, on the next turn of the loop. */
export function pace(): Promise<void> | undefined {
  const now = performance.now();
  if (stretchStart === undefined) {
    stretchStart = now;
    // Runs at the next check phase, i.e. once the loop has turned: the stretch ended there.
    setImmediate(() => (stretchStart = undefined));
    return undefined;
  }
  if (now - stretchStart < SLICE_MS) return undefined;
  paceCounters.turns++;
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * For loops of CPU work between statements (a statement's 5,000 rows planned, built or read back): gives
 * the loop a turn when this stretch has run SLICE_MS, on either engine (CPU blocks Postgres's loop too).
 */
export async function breathe(): Promise<void> {
  const turn = pace();
  if (turn !== undefined) await turn;
}

const writers = new WeakMap<Knex, { open: number }>();

/** Whether a transaction of `db` (a paced SQLite pool) holds the write lock now (src/db/side.ts asks). */
export const writeTransactionOpen = (db: Knex): boolean => (writers.get(db)?.open ?? 0) > 0;

/**
 * Makes every statement of `db` (transactions included) pace itself, and its transactions begin IMMEDIATE:
 * its client gets a subclass whose _query does both, and calls `afterCommit` after each COMMIT (the
 * checkpoint worker's signal, src/db/checkpoint.ts).
 */
export function paceStatements(db: Knex, afterCommit?: () => void): void {
  const client = db.client as { constructor: new (...args: never[]) => { _query(connection: unknown, query: unknown): Promise<unknown> } };
  const Base = client.constructor;
  const state = { open: 0 };
  writers.set(db, state);
  class PacedClient extends Base {
    override async _query(connection: unknown, query: unknown): Promise<unknown> {
      const turn = pace();
      if (turn !== undefined) await turn;
      // A transaction takes the write lock as it begins: in WAL mode a transaction that read first and
      // writes later fails (SQLITE_BUSY_SNAPSHOT, no busy wait helps) when the side connection wrote in
      // between (src/db/side.ts); begun IMMEDIATE it holds the lock, and the side connection's write
      // fails at once instead and is counted in memory.
      const q = query as { sql?: string };
      if (q.sql === "BEGIN;") {
        q.sql = "BEGIN IMMEDIATE;";
        const begun = await super._query(connection, query);
        state.open++;
        return begun;
      }
      if (q.sql === "COMMIT;" || q.sql === "ROLLBACK") state.open = Math.max(0, state.open - 1);
      const done = await super._query(connection, query);
      if (q.sql === "COMMIT;") afterCommit?.();
      return done;
    }
  }
  // knex makes each transaction's client from the prototype of this one (makeTxClient), so they pace too.
  Object.setPrototypeOf(client, PacedClient.prototype);
}
