/**
 * The import's answer: counts, the mapping in the contract's shape (and back), and a page of rows,
 * problems first (possible duplicates, then invalid rows, then new, then duplicates), so that a preview of
 * 5,000 rows shows what needs the person's eye without listing them all.
 */
import type { ImportRow, StatementMapping, Warning } from "../../../generated/types.js";
import { formatMinor } from "../../money/amount.js";
import type { CsvMapping } from "../../statements/parse.js";
import type { ImportOutcome, PlannedEntry, Reconciliation, RowStatus } from "./import.js";

const COLUMN_KEYS = ["date", "amount", "debit", "credit", "payee", "description", "id", "balance", "currency"] as const;

export function mappingFromApi(m: StatementMapping | undefined): Partial<CsvMapping> {
  if (m === undefined) return {};
  const out: Partial<CsvMapping> = {};
  if (m.delimiter !== undefined) out.delimiter = m.delimiter;
  if (m.header_row !== undefined) out.header_row = m.header_row;
  if (m.decimal !== undefined) out.decimal = m.decimal;
  if (m.date_order !== undefined) out.date_order = m.date_order;
  for (const key of COLUMN_KEYS) {
    const column = m[key];
    if (column !== undefined) out[`${key}_column`] = column;
  }
  return out;
}

export function mappingToApi(m: CsvMapping | null): StatementMapping | null {
  if (m === null) return null;
  const out: StatementMapping = { delimiter: m.delimiter, header_row: m.header_row, decimal: m.decimal, date_order: m.date_order };
  for (const key of COLUMN_KEYS) {
    const column = m[`${key}_column`];
    if (column !== undefined) out[key] = column;
  }
  return out;
}

const ORDER: Record<RowStatus, number> = { possible_duplicate: 0, invalid: 1, new: 2, duplicate: 3 };

function statusText(r: PlannedEntry): string {
  if (r.status === "invalid") return `invalid: ${r.reason}`;
  if (r.status === "duplicate") return `duplicate of ${r.of}${r.ofDeleted ? " (deleted since; not imported again)" : ""}`;
  if (r.status === "possible_duplicate") return `possible duplicate of ${r.of}${r.transactionId ? " (imported as asked)" : ""}`;
  return "new";
}

export function countsOf(o: ImportOutcome) {
  const counts = { rows: o.rows.length, new: 0, duplicate: 0, possible_duplicate: 0, invalid: 0, created: 0, to_create: o.toCreate };
  for (const r of o.rows) counts[r.status]++;
  counts.created = o.rows.filter((r) => r.transactionId !== null).length;
  return counts;
}

export function rowsPage(o: ImportOutcome, limit: number, dryRun: boolean): ImportRow[] {
  const sorted = [...o.rows].sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.row - b.row);
  return sorted.slice(0, limit).map((r) => ({
    row: r.row,
    date: r.date,
    amount: r.minor === null ? null : formatMinor(r.minor, o.wallet.currency),
    payee: r.payee,
    description: r.description,
    category: r.category,
    category_from: r.categoryFrom,
    status: statusText(r),
    // A dry run's ids are never committed: none is shown.
    transaction_id: dryRun ? null : r.transactionId,
  }));
}

/** What the person should hear about before (or after) committing: invalid rows, possible duplicates, a balance that does not agree. */
export function importWarnings(counts: ReturnType<typeof countsOf>, reconciliation: Reconciliation | null, skipInvalid: boolean): Warning[] {
  const out: Warning[] = [];
  if (counts.invalid > 0)
    out.push({
      code: "invalid_rows",
      message: `${counts.invalid} rows are invalid (see their status). ${skipInvalid ? "They are left out." : "The commit refuses the statement unless skip_invalid is true or the mapping is corrected."}`,
    });
  if (counts.possible_duplicate > 0)
    out.push({
      code: "possible_duplicates",
      message: `${counts.possible_duplicate} rows look like transactions already in the wallet and are not imported. Ask the person; list the ones to import anyway in import_rows.`,
    });
  if (reconciliation !== null && !/^-?0(\.0+)?$/.test(reconciliation.difference))
    out.push({
      code: "balance_mismatch",
      message: `After the import the wallet's balance on ${reconciliation.date} is ${reconciliation.wallet_balance}, the statement says ${reconciliation.statement_balance} (difference ${reconciliation.difference}). Transactions are missing or the opening balance differs.`,
    });
  return out;
}
