/**
 * What every statement parser produces: plain rows with the text of the file already read into ISO
 * dates and signed decimal amounts. Nothing here knows wallets, users or the database: src/domain/imports
 * decides what each row becomes. A row a parser could not read keeps its number and says which field
 * failed and why, so the preview can name it.
 */
export type StatementFormat = "csv" | "ofx" | "camt" | "qif" | "mt940";

export interface RowError {
  /** The field of the row that failed: date, amount, currency, status … */
  field: string;
  reason: string;
}

export interface StatementEntry {
  /** Where the row is in the file, 1-based: the CSV line or record, the OFX/CAMT entry, the QIF record. */
  row: number;
  /** YYYY-MM-DD, the day the bank booked it. */
  date: string | null;
  /** Signed decimal with a point ("-12.50"): negative is money out. */
  amount: string | null;
  payee: string | null;
  description: string | null;
  /** The bank's own id of the row (OFX FITID, CAMT AcctSvcrRef/NtryRef, an id column). */
  bankId: string | null;
  /** ISO 4217 code stated for the row, when the file states one. */
  currency: string | null;
  error: RowError | null;
}

/** A balance the statement states (OFX LEDGERBAL, CAMT OPBD/CLBD, a CSV balance column). */
export interface StatedBalance {
  date: string;
  amount: string;
}

/** How a CSV was read: detected, shown in the preview, and sent back corrected by the person. */
export interface CsvMapping {
  delimiter: string;
  /** 1-based line of the header row; 0 when the file has none (columns are then "#1", "#2" …). */
  header_row: number;
  date_column: string;
  date_order: DateOrder;
  decimal: "," | ".";
  amount_column?: string;
  /** An indicator column (S/H, D/C, Debit/Credit, Af/Bij) that signs an unsigned amount. */
  sign_column?: string;
  /** A card export where purchases are positive: every amount is negated. */
  purchases_positive?: boolean;
  debit_column?: string;
  credit_column?: string;
  /** The counterparty of money out (the payee column of a bank that splits them by direction). */
  payee_column?: string;
  /** The counterparty of money in, where the bank has a column for it (DKB's "Zahlungspflichtige*r"). */
  payer_column?: string;
  description_column?: string;
  id_column?: string;
  balance_column?: string;
  currency_column?: string;
}

export type DateOrder = "day_first" | "month_first" | "iso";

export interface ParsedStatement {
  format: StatementFormat;
  rows: StatementEntry[];
  /** The statement's currency when it states one for the whole file (OFX CURDEF, CAMT Acct/Ccy). */
  currency: string | null;
  opening: StatedBalance | null;
  closing: StatedBalance | null;
  /** CSV only: the mapping used. */
  mapping: CsvMapping | null;
  /** CSV only: the layout's fingerprint (header and preamble keys), for a mapping remembered per wallet. */
  layout?: string | null;
  /**
   * CSV only: what the reader could not tell from the file and took a default for (the preview asks the
   * person to confirm it), with the first data row as the header names it, for the person to check.
   */
  unsure?: { keys: ("date_order" | "debit_column")[]; sample: Record<string, string> };
}

export const emptyRow = (row: number): StatementEntry => ({
  row,
  date: null,
  amount: null,
  payee: null,
  description: null,
  bankId: null,
  currency: null,
  error: null,
});
