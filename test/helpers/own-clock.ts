/**
 * Latency on the process's own clock, for timed assertions that must hold on a loaded machine: wall time
 * less what other processes' load adds, keeping what the process itself causes (its work, its waits for
 * a lock, the disk, a database server). Two things are discounted, both read from Linux's schedstat
 * (/proc/self/task/<tid>/schedstat, second field: time a thread was ready to run but waited for a CPU):
 *
 * 1. the main thread's own run-queue wait;
 * 2. while the main thread sleeps inside a garbage collection pause, the run-queue wait of the process's
 *    other threads. V8 collects in parallel: the main thread hands parts of a pause to its helper threads
 *    and sleeps until they finish, so a helper waiting for a CPU makes the main thread wait off the run
 *    queue, where (1) cannot see it. Measured under load (docs/history/bounded-at-the-cap.md#measured):
 *    scavenges of 100–300 ms wall in which the main thread ran 1–25 ms, and a whoami's 305 ms in CI.
 *    The discount is the least of the other threads' run-queue wait, the pauses' length and the main
 *    thread's sleep in the span, so work on the main thread (a synchronous loop, a parse, a sort) is never
 *    discounted, nor the helpers' own work. A span's sleep is not split at the pauses' ends (no mark can
 *    be taken inside a block), so a wait outside a pause (fsync, a lock, a socket) in a span that also
 *    holds a pause the main thread spent working may be discounted, by at most that pause's length while
 *    other threads waited for a CPU: a block can read short by the GC pauses inside it, never by more.
 *
 * Where schedstat is missing the clock is wall time. test/limits/bulk-event-loop.test.ts explains its use.
 */
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";

/** A point on the clocks: wall time, the main thread's CPU and run-queue wait, the other threads' run-queue wait. */
export interface Mark {
  wall: number;
  cpu: number;
  wait: number;
  othersWait: number;
}

const buffer = Buffer.alloc(128);
const files = new Map<string, number>();
let listed = -Infinity;

/** [CPU time, run-queue wait] of a thread, in ms ([0, 0] where schedstat is missing). */
function schedstat(tid: string): [number, number] {
  let fd = files.get(tid);
  try {
    if (fd === undefined) files.set(tid, (fd = openSync(`/proc/self/task/${tid}/schedstat`, "r")));
    const text = buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
    const [cpu, wait] = text.split(" ");
    return [Number(cpu) / 1e6, Number(wait) / 1e6];
  } catch {
    if (fd !== undefined) closeSync(fd);
    files.delete(tid);
    return [0, 0];
  }
}

/** The process's threads other than the main one (its worker threads, V8's and libuv's helpers). */
function others(): string[] {
  const now = performance.now();
  if (now - listed > 100) {
    listed = now;
    let tids: string[] = [];
    try {
      tids = readdirSync("/proc/self/task").filter((tid) => tid !== String(process.pid));
    } catch {
      // No procfs: nothing to discount.
    }
    for (const [tid, fd] of files) if (tid !== String(process.pid) && !tids.includes(tid)) (closeSync(fd), files.delete(tid));
    for (const tid of tids) if (!files.has(tid)) schedstat(tid);
  }
  return [...files.keys()].filter((tid) => tid !== String(process.pid));
}

/** Now, on every clock the own clock needs. */
export function mark(): Mark {
  const [cpu, wait] = schedstat(String(process.pid));
  let othersWait = 0;
  for (const tid of others()) othersWait += schedstat(tid)[1];
  return { wall: performance.now(), cpu, wait, othersWait };
}

/** Garbage collection pauses of the main thread (wall start and end), while someone measures. */
const pauses: { start: number; end: number }[] = [];
let observer: PerformanceObserver | undefined;
let users = 0;
const keep = (entries: PerformanceEntry[]) => {
  for (const e of entries) pauses.push({ start: e.startTime, end: e.startTime + e.duration });
  // Pauses end before the spans asked about; old ones are of no use.
  while (pauses.length > 10_000) pauses.shift();
};

/** Starts watching garbage collection pauses; the returned function stops (call it when done measuring). */
export function watchPauses(): () => void {
  if (users++ === 0) {
    observer = new PerformanceObserver((list) => keep(list.getEntries()));
    observer.observe({ entryTypes: ["gc"] });
  }
  return () => {
    if (--users === 0) {
      observer?.disconnect();
      observer = undefined;
    }
  };
}

/** Milliseconds from `a` to `b` on the own clock (spans measured while watchPauses is on). */
export function ownBetween(a: Mark, b: Mark): number {
  if (observer) keep(observer.takeRecords());
  const wall = b.wall - a.wall;
  const wait = b.wait - a.wait;
  const sleep = Math.max(0, wall - (b.cpu - a.cpu) - wait);
  let paused = 0;
  for (const p of pauses) paused += Math.max(0, Math.min(p.end, b.wall) - Math.max(p.start, a.wall));
  return wall - wait - Math.min(b.othersWait - a.othersWait, paused, sleep);
}

/** The loop's longest block, by a timer every 2 ms: the largest gap between its runs, less its period. */
export function loopBlocks() {
  const stopWatching = watchPauses();
  let last = mark();
  // Each gap's ends; the own figure needs the pauses, which are reported after the fact.
  const gaps: [Mark, Mark][] = [];
  const timer = setInterval(() => {
    const now = mark();
    // A gap shorter than 20 ms on the wall clock cannot be the longest block of interest.
    if (now.wall - last.wall > 20) gaps.push([last, now]);
    last = now;
  }, 2);
  return () => {
    clearInterval(timer);
    const max = { wall: 0, own: 0 };
    for (const [a, b] of gaps) {
      max.wall = Math.max(max.wall, b.wall - a.wall - 2);
      max.own = Math.max(max.own, ownBetween(a, b) - 2);
    }
    stopWatching();
    return max;
  };
}
