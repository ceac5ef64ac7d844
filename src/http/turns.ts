/**
 * Lets the event loop turn between requests on SQLite.
 *
 * better-sqlite3 runs every statement synchronously, and knex chains a request's statements through
 * promises, so a request's whole database work runs in microtasks without giving the loop a turn. Every
 * request read in one poll phase therefore ran to its end before the loop turned again: under 50
 * connections a turn took ~120 ms, the listening socket was served once per turn (strace: one accept per
 * turn), and a connection opened late waited seconds for its first answer.
 *
 * The gate admits a few requests per loop turn while others wait: up to PER_TURN queued requests start
 * from setImmediate, in arrival order (an immediate scheduled from the check phase runs in the next turn,
 * after a poll phase that accepts connections and reads requests), and while nothing waits, up to
 * PER_TURN more start as they are read. With nothing else waiting a request starts at once, so an idle
 * server adds no latency. Postgres does not need it: there a request waits for the database on the
 * socket, and the loop turns.
 */
export interface TurnGate {
  /** Resolves when this request may start its database work; undefined when it may start now. */
  enter(): Promise<void> | undefined;
}

/**
 * Measured under 50 connections (10k database, whoami and list_transactions): 1 per turn cut the worst
 * latency from ~9 s to ~1.4 s but cost throughput per CPU second; 4 kept the tail about as short
 * (0.3-1.5 s) with more throughput than without the gate; 8 was no better than 4.
 */
export const PER_TURN = 4;

export function createTurnGate(perTurn = PER_TURN): TurnGate {
  const waiting: (() => void)[] = [];
  let started = 0;
  let scheduled = false;

  const nextTurn = () => {
    started = 0;
    while (started < perTurn && waiting.length > 0) {
      started++;
      waiting.shift()!(); // its synchronous work runs in the microtasks right after this callback
    }
    if (started > 0) setImmediate(nextTurn);
    else scheduled = false;
  };

  return {
    enter() {
      if (waiting.length === 0 && started < perTurn) {
        started++;
        if (!scheduled) {
          scheduled = true;
          setImmediate(nextTurn);
        }
        return undefined;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}

/** The gate for a driver: a real one when statements block the event loop (SQLite), one that never waits otherwise (Postgres). */
export function turnGateFor(blocksEventLoop: boolean): TurnGate {
  return blocksEventLoop ? createTurnGate() : { enter: () => undefined };
}
