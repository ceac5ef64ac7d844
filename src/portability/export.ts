/**
 * finance-mcp export: all of one user's data as one JSON document (or CSV files, one per section, for a
 * spreadsheet). Read in one transaction, so the sections agree with each other while the server writes.
 */
import type { Knex } from "knex";
import { snapshotReads } from "../db/engine.js";
import { migratorConfig } from "../db/migrate.js";
import { ACCOUNT_TABLES, PARTS_TABLE, TAGS_TABLE } from "./tables.js";

export const EXPORT_FORMAT = "finance-mcp-export";
export const EXPORT_VERSION = 1;

export type Row = Record<string, unknown>;

export interface AccountExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  /** The last migration of the database it was made from. */
  schema: string;
  user: { email: string; timezone: string; default_currency: string };
  [section: string]: unknown;
}

/** Integers past 2^53 (money in minor units can be) become strings; drivers give BigInt or text. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

function plainRow(row: Row, omit: readonly string[]): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) if (!omit.includes(k)) out[k] = plain(v);
  return out;
}

export async function lastMigration(db: Knex): Promise<string> {
  const [done] = (await db.migrate.list(migratorConfig)) as [{ name?: string; file?: string }[] | string[], unknown];
  const names = (done as unknown[])
    .map((d) => (typeof d === "string" ? d : ((d as { name?: string; file?: string }).name ?? (d as { file?: string }).file ?? "")))
    .sort();
  return names[names.length - 1] ?? "";
}

export async function exportAccount(db: Knex, userId: string, now = new Date()): Promise<AccountExport> {
  const schema = await lastMigration(db);
  return db.transaction(
    async (trx) => {
      const user = await trx("users").where({ id: userId }).first("email", "timezone", "default_currency");
      if (!user) throw new Error(`no user ${userId}`);
      const out: AccountExport = {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        exported_at: now.toISOString(),
        schema,
        user: { email: user.email, timezone: user.timezone, default_currency: user.default_currency },
      };
      const tags = new Map<string, string[]>();
      for (const t of await trx(TAGS_TABLE).where({ user_id: userId }).orderBy(["transaction_id", "tag"]).select("transaction_id", "tag")) {
        const list = tags.get(t.transaction_id) ?? [];
        list.push(t.tag);
        tags.set(t.transaction_id, list);
      }
      // A split transaction carries its parts as a list, in order, like its tags ([] when not split).
      const parts = new Map<string, Row[]>();
      for (const p of (await trx(PARTS_TABLE).where({ user_id: userId }).orderBy(["transaction_id", "position"])) as Row[]) {
        const list = parts.get(String(p.transaction_id)) ?? [];
        list.push({
          amount_minor: plain(p.amount_minor),
          category: p.category ?? null,
          tags: JSON.parse(String(p.tags)) as string[],
          notes: p.notes ?? null,
          refund: Number(p.refund) === 1,
        });
        parts.set(String(p.transaction_id), list);
      }
      for (const spec of ACCOUNT_TABLES) {
        const rows = (await trx(spec.table)
          .where({ user_id: userId })
          .orderBy(typeof spec.orderBy === "string" ? [spec.orderBy] : spec.orderBy)) as Row[];
        out[spec.section] = rows.map((r) => {
          const row = plainRow(r, spec.omit);
          if (spec.table === "transactions") {
            row.tags = tags.get(String(r.id)) ?? [];
            row.parts = parts.get(String(r.id)) ?? [];
          }
          return row;
        });
      }
      return out;
    },
    // One snapshot for every section.
    snapshotReads(db),
  );
}

/**
 * A cell of a CSV file. Amounts in minor units are numbers (a BigInt when past 2^53, which the JSON
 * export holds as a string), so csv-stringify's escape_formulas leaves "-1250" as it is: a spreadsheet
 * reads it as the number it is, never as a formula (docs/decisions.md, "CSV export: formulas escaped,
 * amounts exempt"). Every other text is escaped when it begins like a formula.
 */
function cell(column: string, value: unknown): unknown {
  // A list of records (a split transaction's parts) is JSON text; a list of tags is joined with "|".
  if (Array.isArray(value) && value.some((v) => v !== null && typeof v === "object")) return JSON.stringify(value);
  if (Array.isArray(value)) return (value as string[]).join("|");
  if (column.endsWith("_minor") && typeof value === "string" && /^-?[0-9]{1,30}$/.test(value)) return BigInt(value);
  return value;
}

/**
 * The export as CSV files, one per section (tags joined with "|"), plus user.csv. Cells beginning with
 * =, +, -, @, TAB or CR (and their full-width forms) get a leading ' (OWASP's CSV injection advice, done
 * by csv-stringify's escape_formulas), so opening the file in a spreadsheet never runs a payee or a note.
 */
export async function exportCsv(data: AccountExport): Promise<Record<string, string>> {
  const { stringify } = await import("csv-stringify/sync");
  const options = { header: true, escape_formulas: true, cast: { boolean: (b: boolean) => (b ? "true" : "false") } };
  const files: Record<string, string> = {};
  files["user.csv"] = stringify([data.user], options);
  for (const spec of ACCOUNT_TABLES) {
    // An optional section (a table newer than the export's format) may be absent: an empty file.
    const rows = (data[spec.section] as Row[] | undefined) ?? [];
    const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
    const cells = rows.map((r) => Object.fromEntries(columns.map((c) => [c, cell(c, r[c])])));
    files[`${spec.section}.csv`] = stringify(cells, { ...options, columns: columns.length > 0 ? columns : undefined });
  }
  return files;
}
