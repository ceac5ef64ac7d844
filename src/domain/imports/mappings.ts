/**
 * A CSV mapping remembered per wallet (issue 37, item 3; docs/import.md, "A mapping remembered per
 * wallet"). The commit of an import that read a CSV saves the mapping it used under the wallet and the
 * file's layout fingerprint (src/statements/csv.ts); the next statement of that layout in that wallet is
 * read with it, and a mapping the call sends overrides it key by key (and, on commit, replaces it). The
 * write happens in the import's own transaction, so the audit captures it (migrations/lib/captured-tables.js)
 * and undoing the import restores the mapping before it, or removes it.
 */
import type { Knex } from "knex";
import type { CsvMapping, ParsedStatement } from "../../statements/parse.js";

export interface RememberedMapping {
  mapping: Partial<CsvMapping>;
  savedAt: string;
}

/** The keys a stored mapping may hold, and what each value must be: a stored row is read back checked. */
const TEXT_KEYS = [
  "date_column",
  "amount_column",
  "sign_column",
  "debit_column",
  "credit_column",
  "payee_column",
  "payer_column",
  "description_column",
  "id_column",
  "balance_column",
  "currency_column",
] as const;

/**
 * A mapping as stored (JSON text) → the mapping, or null when it is not one (an export made by hand):
 * each key checked as the tool's `mapping` parameter checks it. Also the export's import check
 * (src/portability/rules.ts).
 */
export function storedMapping(text: unknown): Partial<CsvMapping> | null {
  let value: unknown;
  try {
    value = typeof text === "string" ? JSON.parse(text) : undefined;
  } catch {
    return null;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const out: Partial<CsvMapping> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === "delimiter" && typeof v === "string" && [...v].length === 1) out.delimiter = v;
    else if (key === "header_row" && Number.isSafeInteger(v) && (v as number) >= 0) out.header_row = v as number;
    else if (key === "decimal" && (v === "," || v === ".")) out.decimal = v;
    else if (key === "date_order" && (v === "day_first" || v === "month_first" || v === "iso")) out.date_order = v;
    else if (key === "purchases_positive" && typeof v === "boolean") out.purchases_positive = v;
    else if (key === "sign_out" && typeof v === "string" && v.length <= 500) out.sign_out = v;
    else if ((TEXT_KEYS as readonly string[]).includes(key) && typeof v === "string" && v.length >= 1 && v.length <= 500)
      out[key as (typeof TEXT_KEYS)[number]] = v;
    else return null;
  }
  return out;
}

/**
 * Where the header is and what separates the cells are found again in each file, never remembered: the
 * fingerprint leaves out blank preamble lines and lines without letters, so next month's file of the same
 * layout may hold its header on another line, and a remembered line number would read a row as the header.
 */
function withoutPlacement(m: Partial<CsvMapping>): Partial<CsvMapping> {
  const { header_row: _row, delimiter: _delimiter, ...kept } = m;
  return kept;
}

export async function rememberedMapping(db: Knex, userId: string, walletId: string, fingerprint: string): Promise<RememberedMapping | null> {
  const row = (await db("import_mappings").where({ user_id: userId, wallet_id: walletId, fingerprint }).first("mapping", "updated_at")) as
    { mapping: string; updated_at: string } | undefined;
  if (row === undefined) return null;
  const mapping = storedMapping(row.mapping);
  return mapping === null ? null : { mapping: withoutPlacement(mapping), savedAt: String(row.updated_at) };
}

/** Keys in a fixed order, so that the same mapping is the same text (and an unchanged one is not written again). */
const canonical = (m: CsvMapping): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(m)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
  );

/**
 * Saves the mapping a committed import used: inserted, or the stored one replaced when it differs (an
 * unchanged mapping keeps its row, its time and writes nothing for the audit to capture).
 */
export async function rememberMapping(db: Knex, userId: string, walletId: string, fingerprint: string, mapping: CsvMapping, now: Date): Promise<void> {
  // "Every row is money in" (sign_out "") is this file's answer, not the layout's: the next file is asked again.
  const { sign_out: signOut, ...rest } = withoutPlacement(mapping);
  const text = canonical((signOut === "" ? rest : { ...rest, sign_out: signOut }) as CsvMapping);
  // Only what a restore of the account's export takes back (a column name of at most 500 characters):
  // a mapping the server could not restore is not remembered at all.
  if (storedMapping(text) === null) return;
  const key = { user_id: userId, wallet_id: walletId, fingerprint };
  const found = (await db("import_mappings").where(key).first("mapping")) as { mapping: string } | undefined;
  const at = now.toISOString();
  if (found === undefined) await db("import_mappings").insert({ ...key, mapping: text, created_at: at, updated_at: at });
  else if (found.mapping !== text) await db("import_mappings").where(key).update({ mapping: text, updated_at: at });
}

/** A remembered key the file's own evidence overruled: what was remembered, what the file was read with, and how many rows it dates otherwise. */
export interface OverruledKey {
  key: "date_order";
  remembered: CsvMapping["date_order"];
  read: CsvMapping["date_order"];
  rows: number;
}

/**
 * The file's own evidence against a remembered mapping (docs/decisions.md#remembered-mapping-and-evidence):
 * its date order, when its dates decide it (a day above 12, so the read was not `unsure`) and the
 * remembered order dates some row otherwise. The import then reads the file in its own order and says so;
 * a file that does not tell keeps the remembered order, which is what remembering is for.
 */
export function dateOrderAgainstFile(detected: ParsedStatement, asRemembered: ParsedStatement): OverruledKey | null {
  const read = detected.mapping?.date_order;
  const remembered = asRemembered.mapping?.date_order;
  if (read === undefined || remembered === undefined || read === remembered || detected.unsure?.keys.includes("date_order")) return null;
  const dateOf = new Map(asRemembered.rows.map((r) => [r.row, r.date]));
  const rows = detected.rows.filter((r) => dateOf.get(r.row) !== r.date).length;
  return rows === 0 ? null : { key: "date_order", remembered, read, rows };
}
