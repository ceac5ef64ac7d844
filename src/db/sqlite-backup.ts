/**
 * finance-mcp backup --to FILE: a consistent copy of a live SQLite database through SQLite's online
 * backup API (better-sqlite3's db.backup), which copies page by page and restarts by itself when a
 * writer changes a page under it, so the server keeps running and the copy is one committed state.
 * The copy is checked (PRAGMA integrity_check) before it is reported. Postgres has its own tools
 * (pg_dump, base backups): docs/operations.md.
 *
 * The copy never goes through a symlink (someone who can write to the target's folder could otherwise
 * point FILE at a file of ours to overwrite, or at a place they can read): it is written into a fresh
 * private folder beside FILE (mkdtemp, mode 0700, where no one else can put a link), checked, then
 * hard-linked to FILE. link(2) creates FILE or fails when anything is there, a dangling symlink included,
 * and never follows it: the O_CREAT|O_EXCL|O_NOFOLLOW semantics, with no window between check and write.
 */
import { chmodSync, existsSync, linkSync, lstatSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { dialectOf, sqlitePath } from "./knex.js";

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
  const existing = lstatOrUndefined(target);
  if (existing?.isSymbolicLink()) throw new BackupError(`${target} is a symbolic link: backup never writes through a link; choose a new file`);
  if (existing) throw new BackupError(`${target} exists already: choose a new file`);
  let scratch: string;
  try {
    scratch = mkdtempSync(join(dirname(target), `.${basename(target)}.`));
  } catch (err) {
    throw new BackupError(`cannot write beside ${target}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
  const copyPath = join(scratch, "copy.sqlite");
  try {
    const pages = await copyAndCheck(from, copyPath);
    chmodSync(copyPath, 0o600); // it holds password and token hashes
    try {
      linkSync(copyPath, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") throw new BackupError(`${target} appeared while copying: backup never replaces a file or follows a link; choose a new file`);
      throw new BackupError(`cannot create ${target}: ${code ?? "error"}`);
    }
    return { to: target, bytes: statSync(target).size, pages };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new BackupError(`cannot check ${path}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

/** The online copy of `from` into `to` (a new file in a private folder), checked with integrity_check; its page count. */
async function copyAndCheck(from: string, to: string): Promise<number> {
  const source = new Database(from, { fileMustExist: true });
  let pages = 0;
  try {
    source.pragma("busy_timeout = 5000");
    const progress = await source.backup(to);
    pages = progress.totalPages;
  } finally {
    source.close();
  }
  const copy = new Database(to, { readonly: true });
  try {
    const check = copy.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new BackupError(`the copy failed its integrity check: ${String(check)}`);
  } finally {
    copy.close();
  }
  return pages;
}
