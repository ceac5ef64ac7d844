/**
 * The import's answer: counts, the mapping in the contract's shape (and back), and a page of rows,
 * problems first (possible duplicates, then invalid rows, then new, then duplicates), so that a preview of
 * 5,000 rows shows what needs the person's eye without listing them all.
 */
import type { ImportRow, StatementMapping, Warning } from "../../../generated/types.js";
import { stringMaxLengths } from "../../../generated/limits.js";
import { formatMinor } from "../../money/amount.js";
import type { CsvMapping, ParsedStatement } from "../../statements/parse.js";
import { directionValues } from "../../statements/csv-sign.js";
import type { ImportOutcome, MappingSource, PlannedEntry, Reconciliation, RowStatus } from "./import.js";
import { decisionNeeded, decisionText, type BalanceGate } from "./balance-gate.js";

const COLUMN_KEYS = ["date", "amount", "sign", "debit", "credit", "payee", "payer", "description", "id", "balance", "fee", "currency"] as const;

export function mappingFromApi(m: StatementMapping | undefined): Partial<CsvMapping> {
  if (m === undefined) return {};
  const out: Partial<CsvMapping> = {};
  if (m.delimiter !== undefined) out.delimiter = m.delimiter;
  if (m.header_row !== undefined) out.header_row = m.header_row;
  if (m.decimal !== undefined) out.decimal = m.decimal;
  if (m.date_order !== undefined) out.date_order = m.date_order;
  if (m.negate !== undefined) out.purchases_positive = m.negate;
  if (m.sign_out !== undefined) out.sign_out = m.sign_out;
  for (const key of COLUMN_KEYS) {
    const column = m[key];
    if (column !== undefined) out[`${key}_column`] = column;
  }
  return out;
}

export function mappingToApi(m: CsvMapping | null): StatementMapping | null {
  if (m === null) return null;
  const out: StatementMapping = { delimiter: m.delimiter, header_row: m.header_row, decimal: m.decimal, date_order: m.date_order };
  if (m.purchases_positive === true) out.negate = true;
  if (m.sign_out !== undefined) out.sign_out = m.sign_out;
  for (const key of COLUMN_KEYS) {
    const column = m[`${key}_column`];
    if (column !== undefined) out[key] = column;
  }
  return out;
}

const ORDER: Record<RowStatus, number> = { possible_duplicate: 0, invalid: 1, not_booked: 2, new: 3, duplicate: 4 };

function statusText(r: PlannedEntry): string {
  if (r.status === "invalid") return `invalid: ${r.reason}`;
  if (r.status === "duplicate") return `duplicate of ${r.of}${r.ofDeleted ? " (deleted since; not imported again)" : ""}`;
  if (r.status === "not_booked") return `not booked (${r.reason}): not imported`;
  if (r.status === "possible_duplicate") return `possible duplicate of ${r.of}${r.transactionId ? " (imported as asked)" : ""}`;
  return "new";
}

export function countsOf(o: ImportOutcome) {
  const counts = { rows: o.rows.length, new: 0, duplicate: 0, possible_duplicate: 0, invalid: 0, not_booked: 0, created: 0, to_create: o.toCreate };
  for (const r of o.rows) counts[r.status]++;
  counts.created = o.rows.filter((r) => r.transactionId !== null).length;
  return counts;
}

export function rowsPage(o: ImportOutcome, limit: number, dryRun: boolean): ImportRow[] {
  const sorted = [...o.rows].sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.row - b.row);
  // Fields every row has first, the rarer last: the model's table orders its columns as a row orders
  // its fields, and a row stops at its last one (src/mcp/model-text.ts).
  return sorted.slice(0, limit).map((r) => ({
    row: r.row,
    status: statusText(r),
    // A dry run's ids are never committed: none is shown.
    transaction_id: dryRun ? null : r.transactionId,
    date: r.date,
    amount: r.minor === null ? null : formatMinor(r.minor, o.wallet.currency),
    payee: r.payee,
    description: r.description,
    category: r.category,
    category_from: r.categoryFrom,
  }));
}

/** What the person should hear about before (or after) committing: invalid rows, possible duplicates, a balance that does not agree. */
export function importWarnings(
  counts: ReturnType<typeof countsOf>,
  reconciliation: Reconciliation | null,
  skipInvalid: boolean,
  parsed?: ParsedStatement,
  descriptionsCut = 0,
  rows: readonly PlannedEntry[] = [],
  gate?: BalanceGate,
  preview = true,
): Warning[] {
  const out: Warning[] = [];
  // Low confidence asks (issue 37): what the file does not tell is shown with a row to check against.
  const unsure = parsed?.unsure;
  if (unsure !== undefined && parsed!.mapping !== null) {
    const first = parsed!.rows[0];
    const sample = Object.entries(unsure.sample)
      .slice(0, 8)
      .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v.slice(0, 40))}`)
      .join(", ");
    const m = parsed!.mapping;
    if (unsure.keys.includes("date_order"))
      out.push({
        code: "mapping_unsure",
        message: `No date in this CSV tells day-first from month-first; it was read ${m.date_order.replace("_", "-")}: row ${first?.row ?? "?"} (${sample}) is dated ${first?.date ?? "?"}. Ask the person; if that is wrong, send mapping.date_order.`,
      });
    // Money out and in told by content alone (columns-by-content.ts): the sign of every row hangs on it.
    if (unsure.keys.includes("debit_column"))
      out.push({
        code: "mapping_unsure",
        message: `No name or balance in this CSV tells which column is money out: ${JSON.stringify(m.debit_column)} was read as money out (it fills more rows) and ${JSON.stringify(m.credit_column)} as money in: row ${first?.row ?? "?"} (${sample}) is ${first?.amount ?? "?"}. Ask the person; if that is backwards, send mapping.debit = ${JSON.stringify(m.credit_column)} and mapping.credit = ${JSON.stringify(m.debit_column)}.`,
      });
    const d = unsure.direction;
    if (unsure.keys.includes("sign_out") && d !== undefined)
      out.push({
        code: "mapping_unsure",
        message:
          d.column === null
            ? `Every amount in this CSV is unsigned and nothing in it tells money out from in. The commit waits: ask the person, then send mapping.sign_out "" if every row is money in, or mapping.negate true if every row is money out; a file that mixes them cannot be read: export it with signed amounts or debit and credit columns.`
            : `${d.named ? `Column ${JSON.stringify(d.column)} holds words no list here knows as money out or in` : `Every amount in this CSV is unsigned and nothing tells money out from in but column ${JSON.stringify(d.column)}`}: ${directionValues(d)}. The commit waits: ask the person which value means money out, then send mapping.sign ${JSON.stringify(d.column)} and mapping.sign_out naming it (several separated by "|"), or mapping.sign_out "" if every row is money in.`,
      });
  }
  if (descriptionsCut > 0)
    out.push({
      code: "descriptions_cut",
      message: `${descriptionsCut === 1 ? "1 row has" : `${descriptionsCut} rows have`} a description longer than ${stringMaxLengths.Description} characters; it is cut there.`,
    });
  if (counts.invalid > 0) {
    const money = gate?.moneyRows.length ?? 0;
    const what =
      money > 0
        ? `${money === counts.invalid ? "They hold" : `${money} of them hold`} amounts: the commit refuses the statement until the mapping is corrected, or the person confirms the balance without them (decision_needed).`
        : skipInvalid
          ? "They are left out."
          : "The commit refuses the statement unless skip_invalid is true or the mapping is corrected.";
    out.push({ code: "invalid_rows", message: `${counts.invalid} rows are invalid (see their status). ${what}` });
  }
  const notBooked = rows.filter((r) => r.status === "not_booked");
  if (notBooked.length > 0) {
    const byKind = new Map<string, number[]>();
    for (const r of notBooked) byKind.set(r.reason!, [...(byKind.get(r.reason!) ?? []), r.row]);
    const kinds = [...byKind].map(
      ([kind, list]) =>
        `${kind}: ${list.length > 6 ? `rows ${list.slice(0, 6).join(", ")} and ${list.length - 6} more` : `row${list.length > 1 ? "s" : ""} ${list.join(", ")}`}`,
    );
    out.push({
      code: "not_booked",
      message: `${notBooked.length} rows are not booked by the bank (${kinds.join("; ")}) and are not imported; a later statement brings the ones the bank books.`,
    });
  }
  const issues = parsed?.balanceIssues;
  if (issues !== undefined && issues.issues.length > 0) {
    const shown = issues.issues
      .slice(0, 5)
      .map((i) =>
        i.kind === "sign"
          ? `row ${i.row} (the balance changes by ${i.change}, the amount is ${i.amount}: the sign is reversed)`
          : i.kind === "fee"
            ? `row ${i.row} (the balance changes by ${i.change}, the amount is ${i.amount}: column ${JSON.stringify(issues.feeColumn)} holds the difference, a fee)`
            : `row ${i.row} (the balance changes by ${i.change}, the amount is ${i.amount}: rows are missing before it, or the amount is wrong)`,
      );
    const more = issues.issues.length > 5 ? ` and ${issues.issues.length - 5} more` : "";
    out.push({ code: "balance_column_mismatch", message: `The balance column does not follow the amounts at ${shown.join(", ")}${more}.` });
  }
  if (counts.possible_duplicate > 0)
    out.push({
      code: "possible_duplicates",
      message: `${counts.possible_duplicate} rows look like transactions already in the wallet and are not imported. Ask the person; list the ones to import anyway in import_rows.`,
    });
  if (reconciliation !== null && reconciliation.differenceMinor !== 0n) {
    const r = reconciliation;
    const abs = (v: bigint) => (v < 0n ? -v : v);
    const further = abs(r.differenceMinor) > abs(r.differenceBefore) ? "This import moves the wallet further from the statement. " : "";
    const likely = r.likely_rows.length === 0 ? "" : ` Rows ${r.likely_rows.join(" and ")} add up to the difference: check them first.`;
    const fee = issues?.feeColumn
      ? ` Column ${JSON.stringify(issues.feeColumn)} holds the difference on the rows the balance column does not follow: a fee the amounts leave out; send mapping.fee: ${JSON.stringify(issues.feeColumn)}.`
      : "";
    // The statement's own rows agree and the wallet already differed before them: said so, not blamed on them.
    const cause =
      gate !== undefined && !gate.notReached && gate.openingDifference === r.differenceMinor
        ? gate.openingStated
          ? ` The wallet already differed by ${r.difference} from the statement's opening balance on ${gate.openingDate}: this statement's rows agree; the wallet's opening balance or earlier transactions differ.`
          : ` The wallet already differed by ${r.difference} on ${gate.openingDate} from the closing balance less this statement's rows: the wallet's opening balance or earlier transactions differ, or the statement lacks rows.`
        : " Otherwise transactions are missing or the opening balance differs.";
    // First: an answer that starts with "moves the wallet further" cannot be misread (issue 37).
    out.unshift({
      code: "balance_mismatch",
      message: `${further}After the import the wallet's balance on ${r.date} is ${r.wallet_balance}, the statement says ${r.statement_balance} (difference ${r.difference}).${likely}${fee}${cause}`,
    });
  }
  // Before everything: the commit waits for the person (balance-gate.ts).
  if (preview && gate !== undefined && parsed !== undefined && decisionNeeded(gate, skipInvalid || gate.moneyRows.length > 0, parsed))
    out.unshift({ code: "decision_needed", message: `The commit is refused until the person decides. ${decisionText(gate, reconciliation, parsed)}` });
  return out;
}

/** A remembered mapping the file's own dates overruled (docs/decisions.md#remembered-mapping-and-evidence): said, with the way back. */
export function overruledWarnings(source: MappingSource | null): Warning[] {
  const o = source?.overruled;
  if (!o) return [];
  const name = (order: string) => order.replace("_", "-");
  return [
    {
      code: "mapping_remembered_overruled",
      message: `The mapping remembered for this layout reads dates ${name(o.remembered)}, but this file's dates say ${name(o.read)}: it was read ${name(o.read)} (${o.rows} ${o.rows === 1 ? "row is" : "rows are"} dated otherwise than the remembered order would). If the remembered order is right, send mapping.date_order "${o.remembered}".`,
    },
  ];
}

/** The reconciliation as the contract has it. */
export function reconciliationToApi(r: Reconciliation | null) {
  if (r === null) return null;
  return { date: r.date, statement_balance: r.statement_balance, wallet_balance: r.wallet_balance, difference: r.difference, likely_rows: r.likely_rows };
}
