/**
 * Where `DATABASE_URL=sqlite:<path>` points must exist and be writable before the server takes its lock
 * (src/db/server-lock.ts) and opens the file: its folder is made when missing (a fresh clone has no
 * `data/`), and a path that cannot be made or written stops the start with one line naming the path and
 * the reason (src/main.ts prints it and exits 2), never a driver's stack.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

export class DatabasePathError extends Error {
  constructor(
    readonly databasePath: string,
    reason: string,
  ) {
    super(`cannot use the SQLite database ${databasePath}: ${reason}. Set DATABASE_URL=sqlite:<a writable path> or fix the folder's permissions.`);
    this.name = "DatabasePathError";
  }
}

/** The nearest existing ancestor of `path` when it is a file (what stops a folder being made there). */
function fileOnTheWay(path: string): string | undefined {
  for (let p = path; dirname(p) !== p; p = dirname(p)) {
    if (existsSync(p)) return statSync(p).isDirectory() ? undefined : p;
  }
  return undefined;
}

/** A person's reading of a file-system error code; the code itself when it is not one of these. */
function because(err: unknown, path: string): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return `permission denied on ${path}`;
    case "ENOTDIR":
      return `${fileOnTheWay(path) ?? `a part of ${path}`} is a file, not a folder`;
    case "EROFS":
      return `${path} is on a read-only file system`;
    case "ENOSPC":
      return "no space left on the device";
    case "EISDIR":
      return `${path} is a folder, not a file`;
    default:
      return code ?? (err instanceof Error ? err.message : String(err));
  }
}

/** Makes the database file's folder when missing and checks that the folder and the file can be written. */
export function prepareSqliteFile(file: string): void {
  const folder = dirname(file);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (err) {
    throw new DatabasePathError(file, `its folder ${folder} cannot be made (${because(err, folder)})`);
  }
  // The folder takes the -wal, -shm and lock files beside the database.
  try {
    accessSync(folder, constants.W_OK);
  } catch (err) {
    throw new DatabasePathError(file, `its folder ${folder} is not writable (${because(err, folder)})`);
  }
  if (!existsSync(file)) return;
  if (statSync(file).isDirectory()) throw new DatabasePathError(file, "it is a folder, not a file");
  try {
    accessSync(file, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new DatabasePathError(file, `the file is not readable and writable (${because(err, file)})`);
  }
}
