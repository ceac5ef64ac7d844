/**
 * An export read as a sequence of items: its header (format, version, schema, user) and then each row
 * with its section and position. From a file the JSON is parsed as a stream (@streamparser/json, which
 * emits each row as soon as it is complete and keeps nothing of the rows before it), so an import's
 * memory does not grow with the file; from an object already in memory the same items are produced.
 */
import { createReadStream } from "node:fs";
import { JSONParser } from "@streamparser/json";
import { ACCOUNT_TABLES } from "./tables.js";

export interface Header {
  format?: unknown;
  version?: unknown;
  schema?: unknown;
}

export type ImportItem =
  { kind: "header"; header: Header } | { kind: "row"; section: string; index: number; row: unknown } | { kind: "problem"; message: string };

const SECTIONS = new Set(ACCOUNT_TABLES.map((s) => s.section));
const HEADER_KEYS = new Set(["format", "version", "schema", "exported_at", "user"]);

/** The items of an export already parsed. */
export async function* itemsOfObject(data: unknown): AsyncGenerator<ImportItem> {
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    yield { kind: "problem", message: "the file is not a JSON object" };
    return;
  }
  const d = data as Record<string, unknown>;
  yield { kind: "header", header: { format: d.format, version: d.version, schema: d.schema } };
  for (const spec of ACCOUNT_TABLES) {
    const rows = d[spec.section];
    if (rows === undefined && spec.optional) continue;
    if (!Array.isArray(rows)) {
      yield { kind: "problem", message: `the export has no ${spec.section} list` };
      return;
    }
    for (let i = 0; i < rows.length; i++) yield { kind: "row", section: spec.section, index: i, row: rows[i] };
  }
}

/**
 * The items of an export file, parsed as it is read. The header must come before the sections and the
 * sections in the order an export writes them (references point backwards); anything else is a problem.
 */
export async function* itemsOfFile(path: string): AsyncGenerator<ImportItem> {
  const header: Header = {};
  let headerSent = false;
  const seen: string[] = [];
  const present = new Set<string>();
  const queue: ImportItem[] = [];
  const parser = new JSONParser({ paths: ["$.*", "$.*.*"], keepStack: false });
  parser.onValue = ({ value, key, stack }) => {
    const depth = stack.length;
    if (depth === 1 && typeof key === "string") {
      if (HEADER_KEYS.has(key)) {
        if (key !== "user") (header as Record<string, unknown>)[key] = value;
      } else if (!SECTIONS.has(key)) {
        queue.push({ kind: "problem", message: `${key}: not a section of an export` });
      } else if (!Array.isArray(value)) {
        queue.push({ kind: "problem", message: `${key}: expected a list` });
      } else {
        present.add(key);
      }
      return;
    }
    if (depth !== 2) return;
    const section = stack[1]?.key;
    if (typeof section !== "string" || !SECTIONS.has(section) || typeof key !== "number") return;
    if (!headerSent) {
      headerSent = true;
      queue.push({ kind: "header", header: { ...header } });
    }
    if (seen[seen.length - 1] !== section) {
      if (seen.includes(section) || ACCOUNT_TABLES.findIndex((s) => s.section === section) < ACCOUNT_TABLES.findIndex((s) => s.section === seen.at(-1))) {
        queue.push({
          kind: "problem",
          message: `${section}: the sections must come in the order an export writes them: ${ACCOUNT_TABLES.map((s) => s.section).join(", ")}`,
        });
      }
      seen.push(section);
    }
    queue.push({ kind: "row", section, index: key, row: value });
  };
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
      parser.write(chunk as Buffer);
      while (queue.length > 0) yield queue.shift()!;
    }
    if (!parser.isEnded) parser.end();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    yield { kind: "problem", message: code ? `cannot read the file (${code})` : `not valid JSON: ${err instanceof Error ? err.message : "parse error"}` };
    return;
  }
  while (queue.length > 0) yield queue.shift()!;
  if (!headerSent) yield { kind: "header", header };
  for (const spec of ACCOUNT_TABLES) {
    if (!present.has(spec.section) && !spec.optional) yield { kind: "problem", message: `the export has no ${spec.section} list` };
  }
}
