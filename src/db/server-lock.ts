/**
 * One server process per SQLite file (docs/reliability.md, "One SQLite writer process").
 *
 * Two processes on one file failed a third of their writes: better-sqlite3 is synchronous, so a process
 * waiting for the other's write lock freezes its whole event loop for up to busy_timeout, and a deferred
 * transaction that read before writing can meet SQLITE_BUSY that no wait cures. One process already
 * serialises its writes itself, so a second one adds nothing but contention: it refuses to start.
 *
 * The lock is SQLite's own, on a small companion file `<database>.server-lock` held in EXCLUSIVE locking
 * mode for the life of the process: the operating system releases it when the process ends in any way
 * (kill -9 included), so there is never a stale lock to clean up. The holder's pid and start time are
 * written beside it (`<database>.server-lock.json`) so that the refusal can name them. Command-line
 * tools (user, token, migrate, export) do not take the lock: they write briefly, and a write that meets
 * the server's lock waits for it (busy_timeout) or answers the retryable `unavailable`.
 */
import Database from "better-sqlite3";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";

export interface ServerLock {
  readonly path: string;
  release(): void;
}

export class DatabaseInUseError extends Error {
  constructor(
    readonly databasePath: string,
    readonly holder: { pid?: number; started_at?: string; host?: string } | undefined,
  ) {
    const who = holder?.pid
      ? `process ${holder.pid}${holder.host ? ` on ${holder.host}` : ""}${holder.started_at ? `, started ${holder.started_at}` : ""}`
      : "another process";
    super(
      `The SQLite database ${databasePath} is already served by ${who}. One server process per SQLite file: stop that one first, ` +
        `or run several processes on Postgres (DATABASE_URL=postgres://...).`,
    );
    this.name = "DatabaseInUseError";
  }
}

function readHolder(file: string): { pid?: number; started_at?: string; host?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as { pid?: number; started_at?: string; host?: string };
  } catch {
    return undefined;
  }
}

/** Takes the file's server lock or throws DatabaseInUseError naming the file and the holder. */
export function acquireServerLock(databasePath: string): ServerLock {
  const path = `${databasePath}.server-lock`;
  const info = `${path}.json`;
  const lock = new Database(path, { timeout: 0 });
  try {
    lock.pragma("locking_mode = EXCLUSIVE");
    // The first write takes the EXCLUSIVE lock; in this locking mode it is kept until the connection closes.
    lock.exec("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder; COMMIT;");
    lock.prepare("INSERT INTO holder (pid) VALUES (?)").run(process.pid);
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code?.startsWith("SQLITE_BUSY")) throw new DatabaseInUseError(databasePath, readHolder(info));
    throw err;
  }
  writeFileSync(info, `${JSON.stringify({ pid: process.pid, started_at: new Date().toISOString(), host: hostname() })}\n`);
  return {
    path,
    release() {
      if (lock.open) lock.close();
    },
  };
}
