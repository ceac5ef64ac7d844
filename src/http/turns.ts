/**
 * Lets the event loop turn between requests on SQLite.
 *
 * better-sqlite3 runs every statement synchronously, and knex chains a request's statements through
 * promises, so a request's whole database work runs in microtasks without giving the loop a turn. Every
 * request read in one poll phase therefore ran to its end before the loop turned again: under 50
 * connections a turn took ~120 ms, the listening socket was served once per turn (strace: one accept per
 * turn), and a connection opened late waited seconds for its first answer.
 *
 * The gate admits one request per loop turn while others wait: the first request of a turn starts at
 * once, the rest queue in arrival order and are started one per turn from setImmediate (an immediate
 * scheduled from the check phase runs in the next turn, after a poll phase that accepts connections and
 * reads requests). With nothing else waiting a request starts at once, so an idle server adds no latency.
 * Postgres does not need it: there a request waits for the database on the socket, and the loop turns.
 */
export interface TurnGate {
  /** Resolves when this request may start its database work; undefined when it may start now. */
  enter(): Promise<void> | undefined;
}

export function createTurnGate(): TurnGate {
  const waiting: (() => void)[] = [];
  let startedThisTurn = false;

  const nextTurn = () => {
    const next = waiting.shift();
    if (next) {
      next(); // its synchronous work runs in the microtasks right after this callback
      setImmediate(nextTurn);
    } else {
      startedThisTurn = false;
    }
  };

  return {
    enter() {
      if (!startedThisTurn) {
        startedThisTurn = true;
        setImmediate(nextTurn);
        return undefined;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}

/** The gate for an engine: a real one for SQLite, one that never waits for Postgres. */
export function turnGateFor(engine: "sqlite" | "postgres"): TurnGate {
  return engine === "sqlite" ? createTurnGate() : { enter: () => undefined };
}
