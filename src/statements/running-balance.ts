/**
 * A running balance column checks every row: in the order the bank booked them, each row's amount must be
 * the change of the balance from the row before. Where it is not, the row is named with what explains it:
 * the sign is reversed, another column (a fee) holds the difference, or rows are missing before it
 * (issue 48). Banks list oldest first or newest first, and some list one day's rows in any order: a row
 * whose day as a whole agrees is not named.
 */
import type { BalanceIssue, StatedBalance } from "./types.js";

export interface RunningRow {
  row: number;
  date: string;
  /** The row's signed amount as imported (a fee column already netted in). */
  amount: string;
  balance: string;
  /** Other numeric cells of the row by column, for a column that explains a difference. */
  others?: Record<string, string>;
}

const SCALE = 4;
/** A signed decimal as an integer of 10^-4 units (statements carry at most 4 decimals in practice). */
export function units(value: string): bigint {
  const negative = value.startsWith("-");
  const [whole = "0", fraction = ""] = value.replace(/^[-+]/, "").split(".");
  const n = BigInt(whole || "0") * 10n ** BigInt(SCALE) + BigInt((fraction + "0".repeat(SCALE)).slice(0, SCALE) || "0");
  return negative ? -n : n;
}

export function decimalOf(n: bigint): string {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const base = 10n ** BigInt(SCALE);
  const fraction = (abs % base)
    .toString()
    .padStart(SCALE, "0")
    .replace(/(?<!0)0+$/, "")
    .padEnd(2, "0");
  return `${negative ? "-" : ""}${abs / base}.${fraction}`;
}

export interface RunningCheck {
  issues: BalanceIssue[];
  /** A column whose value is the difference on every named row that a fee would explain. */
  feeColumn: string | null;
  /** The balance before the first booked row (its balance minus its amount), dated the day before. */
  opening: StatedBalance | null;
}

/** The rows in booking order: the file's, or reversed when the file lists newest first. */
function chronological(rows: readonly RunningRow[]): RunningRow[] {
  const first = rows[0]!.date;
  const last = rows[rows.length - 1]!.date;
  if (first > last) return [...rows].reverse();
  if (first < last) return [...rows];
  // One day only: the order whose balances follow the amounts.
  const forward = mismatches([...rows]);
  const backward = mismatches([...rows].reverse());
  return backward < forward ? [...rows].reverse() : [...rows];
}

function mismatches(rows: readonly RunningRow[]): number {
  let n = 0;
  for (let i = 1; i < rows.length; i++) if (units(rows[i]!.balance) - units(rows[i - 1]!.balance) !== units(rows[i]!.amount)) n++;
  return n;
}

export function checkRunningBalance(rows: readonly RunningRow[], dayBefore: (date: string) => string): RunningCheck {
  // A column that repeats one figure on every row (Boursorama's "accountbalance") is the account's balance
  // now, not a running one: it checks nothing.
  if (rows.length === 0 || (rows.length > 1 && rows.every((r) => units(r.balance) === units(rows[0]!.balance))))
    return { issues: [], feeColumn: null, opening: null };
  const ordered = chronological(rows);
  const first = ordered[0]!;
  // The balance before the first day: before one of its rows, the one from which all the day's amounts lead
  // to a balance the day shows (its end); the first row's, when none does.
  const firstDay = ordered.filter((r) => r.date === first.date);
  const daySum = firstDay.reduce((n, r) => n + units(r.amount), 0n);
  const before =
    firstDay.map((r) => units(r.balance) - units(r.amount)).find((c) => firstDay.some((r) => units(r.balance) === c + daySum)) ??
    units(first.balance) - units(first.amount);
  const opening = { date: dayBefore(first.date), amount: decimalOf(before) };
  // Each day as a whole: it agrees when one of its rows shows the day's start plus all its amounts (the
  // day's end, wherever the bank lists it among the day's rows); its end is the next day's start.
  const days = new Map<string, RunningRow[]>();
  for (const r of ordered) days.set(r.date, [...(days.get(r.date) ?? []), r]);
  const agrees = new Set<string>();
  let start = units(opening.amount);
  for (const [date, list] of days) {
    const end = start + list.reduce((n, r) => n + units(r.amount), 0n);
    if (list.some((r) => units(r.balance) === end)) {
      agrees.add(date);
      start = end;
    } else start = units(list[list.length - 1]!.balance);
  }
  const dayAgrees = (date: string) => agrees.has(date);
  const issues: BalanceIssue[] = [];
  const differences: { row: RunningRow; difference: bigint }[] = [];
  for (let i = 1; i < ordered.length; i++) {
    const r = ordered[i]!;
    const change = units(r.balance) - units(ordered[i - 1]!.balance);
    const amount = units(r.amount);
    if (change === amount || dayAgrees(r.date)) continue;
    const kind = change === -amount && amount !== 0n ? "sign" : "gap";
    issues.push({ row: r.row, kind, change: decimalOf(change), amount: decimalOf(amount) });
    differences.push({ row: r, difference: change - amount });
  }
  // A column that holds the difference on every named row (minus a fee deducted, or a signed fee): the fee.
  let feeColumn: string | null = null;
  if (differences.length > 0) {
    const columns = Object.keys(differences[0]!.row.others ?? {});
    feeColumn =
      columns.find((c) =>
        differences.every(({ row, difference }) => {
          const v = row.others?.[c];
          return v !== undefined && v !== "" && (units(v) === -difference || units(v) === difference);
        }),
      ) ?? null;
    if (feeColumn !== null) for (const issue of issues) issue.kind = "fee";
  }
  return { issues, feeColumn, opening };
}

/**
 * The signs of unsigned amounts told by a running balance (issue 48): in booking order, a row after the
 * first is money out where the balance falls by its amount and money in where it rises by it. In the file's
 * order; null in the first booked row's place (no balance before it tells), and null as a whole where any
 * other row's change is not its amount either way or the column repeats one figure (the check then names
 * the rows as read: balance_column_mismatch).
 */
export function signsByBalance(rows: readonly RunningRow[]): ("out" | "in" | null)[] | null {
  if (rows.length < 2 || rows.every((r) => units(r.balance) === units(rows[0]!.balance))) return null;
  const settle = (order: number[]): ("out" | "in" | null)[] | null => {
    const signs: ("out" | "in" | null)[] = rows.map(() => null);
    for (let k = 1; k < order.length; k++) {
      const change = units(rows[order[k]!]!.balance) - units(rows[order[k - 1]!]!.balance);
      const amount = units(rows[order[k]!]!.amount);
      if (amount < 0n || (change !== amount && change !== -amount)) return null;
      signs[order[k]!] = change < 0n ? "out" : "in";
    }
    return signs;
  };
  const forward = rows.map((_, i) => i);
  const backward = [...forward].reverse();
  const first = rows[0]!.date;
  const last = rows[rows.length - 1]!.date;
  // Oldest first or newest first by the dates; one day only: whichever order the balances follow.
  return first < last ? settle(forward) : first > last ? settle(backward) : (settle(forward) ?? settle(backward));
}
