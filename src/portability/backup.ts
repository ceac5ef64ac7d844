/**
 * finance-mcp backup --to FILE: a consistent copy of a live SQLite database through SQLite's online
 * backup API (better-sqlite3's db.backup), which copies page by page and restarts by itself when a
 * writer changes a page under it, so the server keeps running and the copy is one committed state.
 * The copy is checked (PRAGMA integrity_check) before it is reported. Postgres has its own tools
 * (pg_dump, base backups): docs/operations.md.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { dialectOf, sqlitePath } from "../db/knex.js";

export class BackupError extends Error {}

export interface BackupResult {
  to: string;
  bytes: number;
  pages: number;
}

export async function backupSqlite(databaseUrl: string, to: string): Promise<BackupResult> {
  if (dialectOf(databaseUrl) !== "sqlite") {
    throw new BackupError("backup copies a SQLite database; on Postgres use pg_dump or a base backup (see docs/operations.md, Backups)");
  }
  const from = sqlitePath(databaseUrl);
  if (from === ":memory:" || !existsSync(from)) throw new BackupError(`no SQLite database at ${from}`);
  const target = resolve(to);
  if (existsSync(target)) throw new BackupError(`${target} exists already: choose a new file`);
  const source = new Database(from, { fileMustExist: true });
  let pages = 0;
  try {
    source.pragma("busy_timeout = 5000");
    const progress = await source.backup(target);
    pages = progress.totalPages;
  } finally {
    source.close();
  }
  const copy = new Database(target, { readonly: true });
  try {
    const check = copy.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new BackupError(`the copy failed its integrity check: ${String(check)}`);
  } finally {
    copy.close();
  }
  return { to: target, bytes: statSync(target).size, pages };
}
