/**
 * SQLite: the write-ahead log copied back into the database file by a worker thread, off the event loop
 * (issue 51). SQLite's own automatic checkpoint runs inside the COMMIT that crosses 1,000 pages of log:
 * beside a bulk write that was a COMMIT of 50–125 ms (a copy of megabytes and an fsync) in which no other
 * request was served. Here the request connection checkpoints only as a safety net (SAFETY_NET_PAGES,
 * should the worker be gone), and after each commit the worker, on its own connection, runs a PASSIVE
 * checkpoint: it never waits for a reader or the writer and takes no write lock, so it changes nothing
 * a request sees. docs/decisions.md#bounded-at-the-cap.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** The request connection's own automatic checkpoint, in pages of log: far above what the worker leaves. */
export const SAFETY_NET_PAGES = 20_000;

/** The worker: one connection; a checkpoint at most every 50 ms while commits come, none otherwise. */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.filename);
db.pragma("busy_timeout = 0");
let timer;
parentPort.on("message", (m) => {
  if (m === "close") {
    clearTimeout(timer);
    db.close();
    parentPort.close();
    return;
  }
  timer ??= setTimeout(() => {
    timer = undefined;
    try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
  }, 50);
});
`;

export interface Checkpointer {
  /** A commit happened: the worker checkpoints soon. */
  committed(): void;
  /** Closes the worker's connection; resolves once the thread is gone (its files are let go). */
  close(): Promise<void>;
}

/** Starts the checkpoint worker of the SQLite file `filename`. */
export function offLoopCheckpoints(filename: string): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER, { eval: true, workerData: { filename, driver } });
  worker.unref();
  let alive = true;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  // A worker that fails leaves the safety net: the request connection checkpoints past SAFETY_NET_PAGES.
  worker.on("error", () => (alive = false));
  void exited.then(() => (alive = false));
  return {
    committed: () => alive && worker.postMessage("commit"),
    close: async () => {
      if (alive) worker.postMessage("close");
      alive = false;
      // A worker that does not finish closing within a second is stopped.
      const timer = setTimeout(() => void worker.terminate(), 1000);
      await exited;
      clearTimeout(timer);
    },
  };
}
