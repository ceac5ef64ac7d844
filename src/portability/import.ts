/**
 * finance-mcp import: an export (src/portability/export.ts) restored into an empty account, in one
 * transaction: all of it or nothing.
 *
 * Every row is checked with the write tools' rules first (src/portability/rules.ts); a file with any
 * problem imports nothing, and the error names the file, the section, the row and the column of each
 * (the first MAX_LISTED of them). Rows are read one at a time (from a file, as a stream:
 * src/portability/source.ts) and inserted in batches of BATCH_ROWS, so memory stays flat and 100,000
 * transactions take seconds, not minutes (docs/performance.md, "Import").
 *
 * Every id of the file is replaced by a new one, consistently wherever it appears (references, the JSON
 * lists of budgets, audit entries' before/after), so a file can be imported into the database it came
 * from, next to the original account. The triggers rebuild what is derived (tags_key, the totals) as
 * the rows go in: transactions first, then their tags.
 */
import type { Knex } from "knex";
import { newId, type IdPrefix } from "../db/ids.js";
import { dialect } from "../db/knex.js";
import { migratorConfig } from "../db/migrate.js";
import { EXPORT_FORMAT, EXPORT_VERSION, type Row } from "./export.js";
import { foldKey } from "../domain/shared/text.js";
import { ImportContext, checkRow } from "./rules.js";
import { rebuildTotals, switchRowTotalsOff } from "./totals.js";
import { itemsOfFile, itemsOfObject, type Header, type ImportItem } from "./source.js";
import { ACCOUNT_TABLES, PARTS_TABLE, TAGS_TABLE } from "./tables.js";

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

/** Rows per INSERT: well under both engines' bound on bound parameters (about 20 columns a row). */
export const BATCH_ROWS = 500;
/** Problems listed in the error; the count says how many there were in all. */
export const MAX_LISTED = 20;

/** The ids this project makes, as the spec's id patterns allow them: prefix, underscore, 16 to 40 letters or digits. */
const ANY_ID = /\b(wal|txn|trf|bud|gol|gct|bil)_[0-9A-Za-z]{16,40}\b/g;

/** The row with every id replaced by a new one of the same kind, the same old id always by the same new one. */
function renumber(row: Row, map: Map<string, string>): Row {
  const text = JSON.stringify(row, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)).replace(ANY_ID, (old, prefix: string) => {
    let id = map.get(old);
    if (!id) map.set(old, (id = newId(prefix as IdPrefix)));
    return id;
  });
  return JSON.parse(text) as Row;
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

/** Imports an export already parsed (tests, and files small enough to hold). */
export function importAccount(db: Knex, userId: string, data: unknown, source = "the export"): Promise<ImportSummary> {
  return importItems(db, userId, itemsOfObject(data), source);
}

/** Imports an export file, read as a stream. */
export function importFile(db: Knex, userId: string, path: string): Promise<ImportSummary> {
  return importItems(db, userId, itemsOfFile(path), path);
}

/**
 * A transaction's tags_key as the tag triggers write it (json_agg on Postgres, json_group_array on
 * SQLite). Set with the row, the triggers that follow its tags find it already right and move no totals:
 * without it each tag row moved the expense totals twice, and 100,000 tagged transactions took minutes.
 * Should the order differ from the database's collation, the triggers still correct it.
 */
function tagsKey(tags: string[], pg: boolean): string {
  return pg ? (tags.length === 0 ? "[]" : `[${tags.map((t) => JSON.stringify(t)).join(", ")}]`) : JSON.stringify(tags);
}

async function importItems(db: Knex, userId: string, items: AsyncIterable<ImportItem>, source: string): Promise<ImportSummary> {
  const pg = dialect(db) === "postgres";
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
    if (pg) await switchRowTotalsOff(trx);
    let pending: { table: string; rows: Row[]; tags: Row[]; parts: Row[] } | undefined;
    const flush = async () => {
      if (!pending || pending.rows.length === 0) return;
      const { table, rows, tags, parts } = pending;
      pending = undefined;
      try {
        await trx(table).insert(rows);
        for (let i = 0; i < tags.length; i += BATCH_ROWS) await trx(TAGS_TABLE).insert(tags.slice(i, i + BATCH_ROWS));
        for (let i = 0; i < parts.length; i += BATCH_ROWS) await trx(PARTS_TABLE).insert(parts.slice(i, i + BATCH_ROWS));
      } catch (err) {
        // A row the checks let through but the database refused (a constraint they do not know).
        throw new ImportError(`${source}: the database refused a row of ${table} (code ${driverCode(err)}); nothing was imported`);
      }
    };

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
      const tags = table === "transactions" ? ((columns.tags as string[] | undefined) ?? []) : [];
      const parts = table === "transactions" ? ((columns.parts as Row[] | undefined) ?? []) : [];
      if (table === "transactions") {
        delete columns.tags;
        delete columns.parts;
      }
      if (pending?.table !== table) await flush();
      pending ??= { table, rows: [], tags: [], parts: [] };
      parts.forEach((p, position) => {
        const category = p.category == null ? null : String(p.category);
        pending!.parts.push({
          transaction_id: columns.id,
          position,
          user_id: userId,
          amount_minor: p.amount_minor,
          category,
          category_key: category === null ? null : foldKey(category),
          tags: JSON.stringify([...new Set(((p.tags as string[] | undefined) ?? []).map((t) => foldKey(t)))].sort()),
          notes: p.notes ?? null,
          refund: p.refund === true || p.refund === 1 ? 1 : 0,
        });
      });
      pending.rows.push({ ...columns, user_id: userId });
      const folded = [...new Set(tags.map((t) => foldKey(t)))].sort();
      if (table === "transactions") pending.rows.at(-1)!.tags_key = tagsKey(folded, pg);
      for (const tag of folded) pending.tags.push({ transaction_id: columns.id, user_id: userId, tag });
      counts[item.section]!++;
      if (pending.rows.length >= BATCH_ROWS) await flush();
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
    await flush();
    if (pg) await rebuildTotals(trx, userId);
  });
  return { counts, ids };
}
