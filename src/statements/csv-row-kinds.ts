/**
 * The CSV side of src/statements/row-kinds.ts: which cells of a record are its text (not a date, an amount,
 * a sign or a currency code, and not in a column the mapping reads as money), the status column found by
 * its content, and whether a row that does not read still holds money.
 */
import { indicatorOf } from "./csv-sign.js";
import { parseDate } from "./dates.js";
import { parseDecimal } from "./numbers.js";
import { balanceKindOf, isStatusColumn, notBookedOf, type BalanceKind } from "./row-kinds.js";
import type { CsvMapping } from "./types.js";

interface Cells {
  cells: string[];
}

export interface RowKinds {
  /** The balance a row names when its only text names one ("Anfangssaldo"), else null. */
  balanceNamed(r: Cells): BalanceKind | null;
  /** "pending", "scheduled", "declined" … from the status column; null for a booked row or a file without one. */
  notBooked(r: Cells): string | null;
  /** Whether a row that does not read holds an amount somewhere: leaving it out changes the balance. */
  holdsMoney(r: Cells): boolean;
  /** The row's numbers in the columns the mapping does not read, by column: a fee column that explains a balance. */
  numbersOf(r: Cells): Record<string, string>;
  /** Whether the fee column holds negative values (a signed fee, added as it stands). */
  feeSigned: boolean;
}

const MONEY_LIKE = /\d[.,]\d{2}(?!\d)/;
const BALANCE_WORD = /saldo|balance|kontostand|solde/i;

export function rowKindsOf(records: readonly Cells[], columns: readonly string[], mapping: CsvMapping): RowKinds {
  const index = (c: string | undefined) => (c === undefined ? -1 : columns.indexOf(c));
  const money = [mapping.amount_column, mapping.debit_column, mapping.credit_column, mapping.fee_column].map(index).filter((i) => i >= 0);
  const mapped = new Set(
    [
      mapping.date_column,
      mapping.amount_column,
      mapping.debit_column,
      mapping.credit_column,
      mapping.fee_column,
      mapping.balance_column,
      mapping.sign_column,
      mapping.currency_column,
      mapping.id_column,
    ]
      .map(index)
      .filter((i) => i >= 0),
  );
  const cellsAt = (i: number) => records.map((r) => r.cells[i] ?? "");
  const dateAt = index(mapping.date_column);
  const status = columns.findIndex((c, i) => !mapped.has(i) && c !== mapping.payee_column && c !== mapping.payer_column && isStatusColumn(cellsAt(i)));
  const isData = (c: string) =>
    parseDate(c, "day_first") !== null ||
    parseDate(c, "month_first") !== null ||
    parseDecimal(c, mapping.decimal) !== null ||
    indicatorOf(c) !== null ||
    /^[A-Z]{3}$/.test(c);
  const fee = index(mapping.fee_column);
  const feeSigned = fee >= 0 && records.some((r) => (parseDecimal(r.cells[fee] ?? "", mapping.decimal) ?? "").startsWith("-"));
  return {
    feeSigned,
    balanceNamed(r) {
      // Cheap first: most rows name no balance at all (a 5,000-row preview reads each row once more here).
      if (!r.cells.some((c) => BALANCE_WORD.test(c))) return null;
      // The date column's cell counts when it holds words ("Kontostand" where the day would be).
      const texts = r.cells.filter((c, i) => c !== "" && (!mapped.has(i) || i === dateAt) && i !== status && !isData(c));
      if (texts.length === 0) return null;
      let kind: BalanceKind = "stated";
      for (const t of new Set(texts)) {
        const k = balanceKindOf(t);
        if (k === null) return null;
        if (k !== "stated") kind = k;
      }
      return kind;
    },
    notBooked(r) {
      return status < 0 ? null : notBookedOf(r.cells[status] ?? "");
    },
    holdsMoney(r) {
      if (money.some((i) => /\d/.test(r.cells[i] ?? ""))) return true;
      return r.cells.some(
        (c, i) => !mapped.has(i) && MONEY_LIKE.test(c) && parseDecimal(c, mapping.decimal) !== null && parseDate(c, mapping.date_order) === null,
      );
    },
    numbersOf(r) {
      const out: Record<string, string> = {};
      r.cells.forEach((c, i) => {
        if (mapped.has(i) && i !== fee) return;
        const v = c === "" ? null : parseDecimal(c, mapping.decimal);
        if (v !== null && columns[i] !== undefined) out[columns[i]!] = v;
      });
      return out;
    },
  };
}
