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
  /**
   * Not booked by the bank (yet, or ever): "pending", "scheduled", "reverted", "declined" … as the row's
   * status says (src/statements/row-kinds.ts). Such a row is shown and counted, never imported.
   */
  notBooked?: string;
  /** An invalid row that still holds an amount: leaving it out changes the balance (docs/import.md, "No silent balance"). */
  holdsMoney?: boolean;
}

/** A balance the statement states (OFX LEDGERBAL, CAMT OPBD/CLBD, a CSV balance column). */
export interface StatedBalance {
  date: string;
  amount: string;
}

/** A row whose amount is not the change of a running balance column (src/statements/running-balance.ts). */
export interface BalanceIssue {
  row: number;
  /** sign: the amount has the wrong sign; fee: a fee column holds the difference; gap: rows are missing before it. */
  kind: "sign" | "fee" | "gap";
  /** The balance column's change at this row, and the row's amount, signed decimals. */
  change: string;
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
  /** The sign column's value(s) that mean money out, "|"-separated, for words no list knows; "" when every row is money in. */
  sign_out?: string;
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
  /** A fee the bank writes beside the amount (balance = previous + amount − fee): netted into the row's amount. */
  fee_column?: string;
  currency_column?: string;
}

/** A column that may tell money out from in with words no list knows, and its values: the person says which is out. */
export interface DirectionAsk {
  /** Null where no column of the file may tell (unsigned amounts and nothing else): the person says all in or all out. */
  column: string | null;
  /** Its distinct values, the first few (SHOWN_DIRECTION_VALUES in csv-sign.ts). */
  values: string[];
  /** How many more values the column holds than are shown. */
  more?: number;
  /** True when the person (or a remembered mapping) named the column; false when found by content. */
  named: boolean;
}

export type DateOrder = "day_first" | "month_first" | "iso";

export interface ParsedStatement {
  format: StatementFormat;
  rows: StatementEntry[];
  /** The statement's currency when it states one for the whole file (OFX CURDEF, CAMT Acct/Ccy). */
  currency: string | null;
  opening: StatedBalance | null;
  closing: StatedBalance | null;
  /** CSV only: rows whose amount is not the change of the balance column, and a column that explains them. */
  balanceIssues?: { issues: BalanceIssue[]; feeColumn: string | null };
  /**
   * CSV only: the date order the person gave spreads the rows over months where the other order keeps them
   * within one month (a month's statement read the wrong way round): the commit waits for the person.
   */
  datesApart?: { order: DateOrder; from: string; to: string; other: DateOrder; otherFrom: string; otherTo: string };
  /**
   * CSV only: unsigned amounts signed by a running balance, whose first booked row's sign is a guess (no balance
   * before it tells): its row and the direction read. The commit waits where the wallet's balance differs (balance-gate.ts).
   */
  signGuessed?: { row: number; sign: "out" | "in" };
  /** CSV only: the mapping used. */
  mapping: CsvMapping | null;
  /** CSV only: the layout's fingerprint (header and preamble keys), for a mapping remembered per wallet. */
  layout?: string | null;
  /**
   * CSV only: what the reader could not tell from the file and took a default for (the preview asks the
   * person to confirm it), with the first data row as the header names it, for the person to check.
   */
  unsure?: { keys: ("date_order" | "debit_column" | "sign_out")[]; sample: Record<string, string>; direction?: DirectionAsk };
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
