/**
 * finance-mcp import: an export (src/portability/export.ts) restored into an empty account, in one
 * transaction: all of it or nothing.
 *
 * Every row is checked with the write tools' rules first (src/portability/rules.ts); a file with any
 * problem imports nothing, and the error names the file, the section, the row and the column of each
 * (the first MAX_LISTED of them). Rows are read one at a time (from a file, as a stream:
 * src/portability/source.ts) and inserted as they are checked (src/db/bulk-insert.ts: COPY on Postgres,
 * batches of INSERTs on SQLite), so memory stays flat and 100,000 transactions take seconds, not minutes
 * (docs/history/perf-import.md).
 *
 * Every id of the file is replaced by a new one, consistently wherever it appears (references, the JSON
 * lists of budgets, audit entries' before/after), so a file can be imported into the database it came
 * from, next to the original account. What is derived (tags_key, the totals) is set with each row and kept
 * by the triggers on SQLite; on Postgres the totals are rebuilt set-based after the rows
 * (src/db/bulk-totals.ts). Transactions go in first, then their tags.
 */
import type { Knex } from "knex";
import { newId, type IdPrefix } from "../db/ids.js";
import { tagsKeyText } from "../db/dialect.js";
import { migratorConfig } from "../db/migrate.js";
import { EXPORT_FORMAT, EXPORT_VERSION, type Row } from "./export.js";
import { foldedKeys, foldKey } from "../domain/shared/text.js";
import { ImportContext, checkRow } from "./rules.js";
import { rebuildTotals, switchRowTotalsOff } from "../db/bulk-totals.js";
import { itemsOfFile, itemsOfObject, type Header, type ImportItem } from "./source.js";
import { ACCOUNT_TABLES, PARTS_TABLE, TAGS_TABLE } from "./tables.js";
import { bulkInsert } from "../db/bulk-insert.js";

/** Why an import was refused; `problems` lists each one found (none for a refusal of the whole file). */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(problems.length === 0 ? message : `${message}\n${problems.map((p) => `  ${p}`).join("\n")}`);
  }
}

export interface ImportSummary {
  /** Rows imported per section. */
  counts: Record<string, number>;
  /** Each id of the file and the id it has now. */
  ids: Map<string, string>;
}

/** Problems listed in the error; the count says how many there were in all. */
export const MAX_LISTED = 20;

/** The ids this project makes, as the spec's id patterns allow them: prefix, underscore, 16 to 40 letters or digits. */
const ANY_ID = /\b(wal|txn|trf|bud|gol|gct|bil|rul|xrt|imp|blk|rcd)_[0-9A-Za-z]{16,40}\b/g;

/** The shortest id ANY_ID matches: a string shorter than that holds none. */
const SHORTEST_ID = "wal_".length + 16;

function renumberText(text: string, map: Map<string, string>): string {
  if (text.length < SHORTEST_ID) return text;
  return text.replace(ANY_ID, (old, prefix: string) => {
    let id = map.get(old);
    if (!id) map.set(old, (id = newId(prefix as IdPrefix)));
    return id;
  });
}

function renumberValue(value: unknown, map: Map<string, string>): unknown {
  if (typeof value === "string") return renumberText(value, map);
  if (Array.isArray(value)) return value.map((v) => renumberValue(v, map));
  if (value !== null && typeof value === "object") return renumber(value as Row, map);
  return value;
}

/**
 * The row with every id replaced by a new one of the same kind, the same old id always by the same new
 * one: in every text, JSON text included (a budget's wallet_ids, an audit entry's before/after). Walked
 * value by value: JSON.stringify and parse of every row were a third of the import's CPU.
 */
function renumber(row: Row, map: Map<string, string>): Row {
  const out: Row = {};
  for (const key of Object.keys(row)) out[key] = renumberValue(row[key], map);
  return out;
}

function headerProblem(h: Header, applied: Set<string>): string | undefined {
  if (h.format !== EXPORT_FORMAT) return `the file is not a finance-mcp export (format must be "${EXPORT_FORMAT}")`;
  if (h.version !== EXPORT_VERSION) return `the export's version ${JSON.stringify(h.version)} is not ${EXPORT_VERSION}`;
  if (h.schema !== undefined && h.schema !== "" && (typeof h.schema !== "string" || !applied.has(h.schema))) {
    return `the export was made under migration ${JSON.stringify(h.schema)}, which this database has not run: upgrade finance-mcp and migrate first`;
  }
  return undefined;
}

async function isEmpty(trx: Knex.Transaction, userId: string): Promise<boolean> {
  for (const spec of ACCOUNT_TABLES) {
    if (await trx(spec.table).where({ user_id: userId }).first(trx.raw("1 AS present"))) return false;
  }
  return true;
}

/** What the database said, without its message (which quotes SQL and values): the driver's code. */
function driverCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "error";
}

/** " of <table>" when the driver names the table (a constraint's), else nothing. */
function tableOf_(err: unknown): string {
  const table = (err as { table?: unknown } | null)?.table;
  return typeof table === "string" && /^[a-z_]+$/.test(table) ? ` of ${table}` : "";
}

/** Imports an export already parsed (tests, and files small enough to hold). */
export function importAccount(db: Knex, userId: string, data: unknown, source = "the export"): Promise<ImportSummary> {
  return importItems(db, userId, itemsOfObject(data), source);
}

/** Imports an export file, read as a stream. */
export function importFile(db: Knex, userId: string, path: string): Promise<ImportSummary> {
  return importItems(db, userId, itemsOfFile(path), path);
}

async function importItems(db: Knex, userId: string, items: AsyncIterable<ImportItem>, source: string): Promise<ImportSummary> {
  // A transaction's tags_key set with the row, as the tag triggers write it: the triggers that follow its
  // tags find it already right and move no totals (without it each tag row moved the expense totals
  // twice, and 100,000 tagged transactions took minutes).
  const tagsKey = tagsKeyText(db);
  const [done] = (await db.migrate.list(migratorConfig)) as [unknown[], unknown];
  const applied = new Set((done as unknown[]).map((d) => (typeof d === "string" ? d : String((d as { name?: string }).name ?? (d as { file?: string }).file))));
  const tableOf = new Map(ACCOUNT_TABLES.map((s) => [s.section, s.table]));
  const counts: Record<string, number> = Object.fromEntries(ACCOUNT_TABLES.map((s) => [s.section, 0]));
  const ids = new Map<string, string>();
  const ctx = new ImportContext();
  const problems: string[] = [];
  let total = 0;
  const note = (p: string) => {
    total++;
    if (problems.length < MAX_LISTED) problems.push(p);
  };

  await db.transaction(async (trx) => {
    if (!(await isEmpty(trx, userId)))
      throw new ImportError("the account is not empty: import only into an account without wallets, transactions, budgets, goals, bills or audit entries");
    await switchRowTotalsOff(trx);
    const rows = await bulkInsert(trx);
    // A row the checks let through but the database refused (a constraint they do not know): the driver's
    // error carries a code. Anything else passes as it is (the CLI names it without its message).
    const refused = (err: unknown) =>
      err instanceof ImportError || driverCode(err) === "error"
        ? err
        : new ImportError(`${source}: the database refused a row${tableOf_(err)} (code ${driverCode(err)}); nothing was imported`);
    try {
      for await (const item of items) {
        if (item.kind === "problem") {
          note(item.message);
          continue;
        }
        if (item.kind === "header") {
          const bad = headerProblem(item.header, applied);
          if (bad) throw new ImportError(`${source}: ${bad}`);
          continue;
        }
        const table = tableOf.get(item.section)!;
        const { problems: rowProblems, row } = checkRow(table, item.row, ctx);
        for (const p of rowProblems) note(`${item.section}[${item.index}].${p.column}: ${p.message}`);
        if (total > 0) continue; // keep checking, to name every problem, but insert nothing more
        const columns = renumber(row, ids);
        counts[item.section]!++;
        if (table !== "transactions") {
          await rows.add(table, { ...columns, user_id: userId });
          continue;
        }
        const folded = [...new Set(((columns.tags as string[] | undefined) ?? []).map((t) => foldKey(t)))].sort();
        const parts = (columns.parts as Row[] | undefined) ?? [];
        delete columns.tags;
        delete columns.parts;
        await rows.add(
          table,
          { ...columns, user_id: userId, tags_key: tagsKey(folded) },
          {
            [TAGS_TABLE]: folded.map((tag) => ({ transaction_id: columns.id, user_id: userId, tag })),
            [PARTS_TABLE]: parts.map((part, position) => partRow(part, position, String(columns.id), userId)),
          },
        );
      }
      if (total === 0) {
        for (const transfer of ctx.unpairedTransfers().slice(0, MAX_LISTED)) note(`transactions: transfer ${transfer} needs exactly two legs`);
      }
      if (total > 0) {
        throw new ImportError(
          `${source}: ${total} problem${total === 1 ? "" : "s"}${total > problems.length ? ` (the first ${problems.length} below)` : ""}; nothing was imported:`,
          problems,
        );
      }
      await rows.end();
    } catch (err) {
      await rows.abort();
      throw refused(err);
    }
    await rebuildTotals(trx, userId);
  });
  return { counts, ids };
}

/** A split part as transaction_parts stores it (the export holds its tags as a list, its category as written). */
function partRow(part: Row, position: number, transactionId: string, userId: string): Row {
  const category = part.category == null ? null : String(part.category);
  return {
    transaction_id: transactionId,
    position,
    user_id: userId,
    amount_minor: part.amount_minor,
    category,
    ...foldedKeys({ category }),
    tags: JSON.stringify([...new Set(((part.tags as string[] | undefined) ?? []).map((t) => foldKey(t)))].sort()),
    notes: part.notes ?? null,
    refund: part.refund === true || part.refund === 1 ? 1 : 0,
  };
}
