/**
 * Paging shared by every list tool: page sizes, and opaque keyset cursors. A cursor is base64url JSON
 * {v: 1, f, ...position}: f fingerprints the query (filters and sort), so a cursor passed with other
 * filters is refused instead of silently paging another result; the position is the last row's sort key,
 * which each list checks with its own guard (a cursor is user input once it leaves the server).
 */
import { createHash } from "node:crypto";
import { limits } from "../../generated/limits.js";
import { AppError } from "../errors.js";
import { canonicalJson } from "../json.js";

/** Page sizes of list tools: info.x-limits of the spec (codegen checks every list tool's limit agrees). */
export const DEFAULT_PAGE_SIZE = limits.defaultPageSize;
export const MAX_PAGE_SIZE = limits.maxPageSize;

/** The page size a list uses for the limit it was given. */
export const pageSize = (limit: number | undefined) => Math.min(Math.max(limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);

/** A short hash of what a query is (its filters and sort; never the cursor or the limit). */
export function queryFingerprint(query: unknown): string {
  return createHash("sha256").update(canonicalJson(query)).digest("base64url").slice(0, 16);
}

export function encodeCursor(fingerprint: string, position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify({ v: 1, ...position, f: fingerprint }), "utf8").toString("base64url");
}

const badCursor = (why: string) =>
  new AppError(
    "invalid_params",
    `cursor: ${why} Pass next_cursor back unchanged, with the same filters and sort, or leave cursor out to start from the first page.`,
    {
      field: "cursor",
      expected: "the next_cursor of the previous page, with the same filters and sort",
    },
  );

/**
 * The position a cursor holds, or invalid_params on `cursor`: when it is not one this server issued
 * (isPosition says whether its fields are well-formed) or belongs to a query with another fingerprint.
 */
export function decodeCursor<P extends Record<string, unknown>>(raw: string, fingerprint: string, isPosition: (c: Record<string, unknown>) => c is P): P {
  let c: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error("not base64url");
    c = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw badCursor("this is not a cursor this server issued.");
  }
  if (c === null || typeof c !== "object" || Array.isArray(c)) throw badCursor("this is not a cursor this server issued.");
  const fields = c as Record<string, unknown>;
  if (fields.v !== 1 || typeof fields.f !== "string") throw badCursor("this is not a cursor this server issued.");
  if (fields.f !== fingerprint) throw badCursor("it belongs to a query with other filters or another sort.");
  // Postgres text cannot hold NUL: a position carrying one would fail in the driver, not here.
  if (Object.values(fields).some((v) => typeof v === "string" && v.includes("\u0000"))) throw badCursor("this is not a cursor this server issued.");
  if (!isPosition(fields)) throw badCursor("this is not a cursor this server issued.");
  return fields;
}

/** Keeps the first `size` rows and says whether there were more (lists read size + 1 rows). */
export function splitPage<T>(rows: T[], size: number): { page: T[]; hasMore: boolean; last: T | undefined } {
  const hasMore = rows.length > size;
  const page = hasMore ? rows.slice(0, size) : rows;
  return { page, hasMore, last: page[page.length - 1] };
}
