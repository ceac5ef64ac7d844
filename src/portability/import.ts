/**
 * finance-mcp import: an export (src/portability/export.ts) restored into an empty account, in one
 * transaction (all of it or nothing).
 *
 * Every id of the file is replaced by a new one, consistently wherever it appears (references, the JSON
 * lists of budgets, audit entries' before/after), so a file can be imported into the database it came
 * from, next to the original account. The triggers rebuild what is derived (tags_key, the totals) as
 * the rows go in: transactions first, then their tags.
 */
import type { Knex } from "knex";
import { newId, type IdPrefix } from "../db/ids.js";
import { migratorConfig } from "../db/migrate.js";
import { EXPORT_FORMAT, EXPORT_VERSION, type AccountExport, type Row } from "./export.js";
import { ACCOUNT_TABLES, ID_PATTERN, TAGS_TABLE } from "./tables.js";

export class ImportError extends Error {}

export interface ImportSummary {
  /** Rows imported per section. */
  counts: Record<string, number>;
  /** Each id of the file and the id it has now. */
  ids: Map<string, string>;
}

/** Why the document is not an export this version can import, or undefined. */
function shapeProblem(data: unknown): string | undefined {
  if (!data || typeof data !== "object" || Array.isArray(data)) return "the file is not a JSON object";
  const d = data as Partial<AccountExport>;
  if (d.format !== EXPORT_FORMAT) return `the file is not a finance-mcp export (format must be "${EXPORT_FORMAT}")`;
  if (d.version !== EXPORT_VERSION) return `the export's version ${JSON.stringify(d.version)} is not ${EXPORT_VERSION}`;
  for (const spec of ACCOUNT_TABLES) {
    if (!Array.isArray((d as Record<string, unknown>)[spec.section])) return `the export has no ${spec.section} list`;
  }
  return undefined;
}

/** Replaces every id of the document with a new one of the same kind, the same old id always by the same new one. */
function renumber(data: AccountExport, map: Map<string, string>): AccountExport {
  const text = JSON.stringify(data).replace(ID_PATTERN, (old, prefix: string) => {
    let id = map.get(old);
    if (!id) map.set(old, (id = newId(prefix as IdPrefix)));
    return id;
  });
  return JSON.parse(text) as AccountExport;
}

async function isEmpty(trx: Knex.Transaction, userId: string): Promise<boolean> {
  for (const spec of ACCOUNT_TABLES) {
    if (await trx(spec.table).where({ user_id: userId }).first(trx.raw("1 AS present"))) return false;
  }
  return true;
}

export async function importAccount(db: Knex, userId: string, raw: unknown): Promise<ImportSummary> {
  const problem = shapeProblem(raw);
  if (problem) throw new ImportError(problem);
  const ids = new Map<string, string>();
  const data = renumber(raw as AccountExport, ids);
  const [done] = (await db.migrate.list(migratorConfig)) as [unknown[], unknown];
  const applied = new Set((done as unknown[]).map((d) => (typeof d === "string" ? d : String((d as { name?: string }).name ?? (d as { file?: string }).file))));
  if (data.schema && !applied.has(data.schema)) {
    throw new ImportError(`the export was made under migration ${data.schema}, which this database has not run: upgrade finance-mcp and migrate first`);
  }

  const counts: Record<string, number> = {};
  await db.transaction(async (trx) => {
    if (!(await isEmpty(trx, userId)))
      throw new ImportError("the account is not empty: import only into an account without wallets, transactions, budgets, goals, bills or audit entries");
    for (const spec of ACCOUNT_TABLES) {
      const rows = data[spec.section] as Row[];
      counts[spec.section] = rows.length;
      for (const row of rows) {
        const { tags, ...columns } = row as Row & { tags?: unknown };
        if (spec.table === "audit_log") delete columns.id; // the new log numbers its entries
        await trx(spec.table).insert({ ...columns, user_id: userId });
        if (spec.table === "transactions" && Array.isArray(tags)) {
          for (const tag of tags) await trx(TAGS_TABLE).insert({ transaction_id: columns.id, user_id: userId, tag });
        }
      }
    }
  });
  return { counts, ids };
}
