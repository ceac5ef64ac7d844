/**
 * Latency on the process's own clock, for timed assertions that must hold on a loaded machine: wall time
 * less the time this thread was ready to run but waited for a CPU (its run-queue wait, the second field
 * of Linux's /proc/thread-self/schedstat). That discounts exactly what other processes' load adds and
 * keeps what the process itself causes (its work, its waits for a lock, the disk, a database server).
 * Where schedstat is missing the clock is wall time. test/limits/bulk-event-loop.test.ts explains its use.
 */
import { readFileSync } from "node:fs";

/** Milliseconds the main thread waited to be scheduled since it started (0 where Linux's schedstat is missing). */
function runQueueWait(): number {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[1]) / 1e6;
  } catch {
    return 0;
  }
}

/** A clock that runs only while this thread runs or waits on its own account (not for a CPU). */
export const ownClock = () => performance.now() - runQueueWait();

/** The loop's longest block, by a timer every 2 ms: the largest gap between its runs, less its period. */
export function loopBlocks() {
  let wall = performance.now();
  let own = ownClock();
  const max = { wall: 0, own: 0 };
  const timer = setInterval(() => {
    const [w, o] = [performance.now(), ownClock()];
    max.wall = Math.max(max.wall, w - wall - 2);
    max.own = Math.max(max.own, o - own - 2);
    [wall, own] = [w, o];
  }, 2);
  return () => (clearInterval(timer), max);
}
