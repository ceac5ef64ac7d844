/**
 * No path to a silently wrong balance (issue 48; docs/import.md, "No silent balance"): a commit that would
 * leave out rows holding money (skip_invalid), or leave the wallet off the statement's closing balance by
 * more than it already was at the statement's start, is refused until the person confirms the balance it
 * leads to (`expected_balance`). The refusal and the preview's `decision_needed` warning say which rows,
 * what the balance would be, and offer a mapping fix first.
 */
import type { Knex } from "knex";
import { invalidParams } from "../../errors.js";
import { formatMinor } from "../../money/amount.js";
import { addDays } from "../../calendar/days.js";
import type { ParsedStatement } from "../../statements/parse.js";
import { balanceOf, ledgerSums, type WalletRow } from "../wallets/store.js";
import { rowMinor } from "./amounts.js";

/** What the gate reads of a planned row and of the reconciliation (import.ts's PlannedEntry and Reconciliation). */
interface PlannedEntry {
  row: number;
  status: string;
  date: string | null;
  minor: bigint | null;
  holdsMoney: boolean;
}
interface Reconciliation {
  date: string;
  statement_balance: string;
  difference: string;
  differenceMinor: bigint;
  walletMinor: bigint;
}

export interface BalanceGate {
  /** The wallet's balance after the import on `date` (the closing balance's day, else the latest row's). */
  date: string;
  balanceAfter: string;
  afterMinor: bigint;
  /** Rows left out that hold money (invalid), and rows the balance column does not follow. */
  moneyRows: number[];
  issueRows: number[];
  /** The statement's closing balance is not reached, beyond what the wallet already differed at its start. */
  notReached: boolean;
  /** The wallet's difference from the statement's opening balance before its first row (statement minus wallet). */
  openingDifference: bigint | null;
  openingDate: string | null;
  /** The opening balance is the statement's (stated or its running balance's), not the closing less its rows. */
  openingStated: boolean;
}

const minorOf = (amount: string | null, currency: string): bigint | null => {
  if (amount === null) return null;
  const m = rowMinor(amount, currency);
  return "minor" in m ? m.minor : null;
};

/**
 * The balance before the statement's first row, against the wallet's then: the stated opening (dated
 * before the first row, else the day before it), or the closing balance less the statement's rows.
 */
async function openingDifference(
  db: Knex,
  userId: string,
  wallet: WalletRow,
  parsed: ParsedStatement,
  rows: readonly PlannedEntry[],
): Promise<{ difference: bigint; date: string; stated: boolean } | null> {
  const counted = rows.filter((r) => r.status !== "not_booked" && r.date !== null);
  if (counted.length === 0) return null;
  const earliest = counted.reduce((m, r) => (r.date! < m ? r.date! : m), counted[0]!.date!);
  const byRow = new Map(parsed.rows.map((r) => [r.row, r]));
  let opening: bigint | null = null;
  let date = addDays(earliest, -1);
  if (parsed.opening !== null) {
    opening = minorOf(parsed.opening.amount, wallet.currency) ?? (/^-?0*(\.0*)?$/.test(parsed.opening.amount) ? 0n : null);
    if (parsed.opening.date < earliest) date = parsed.opening.date;
  } else if (parsed.closing !== null) {
    const closing = minorOf(parsed.closing.amount, wallet.currency);
    if (closing === null) return null;
    let sum = 0n;
    for (const r of counted) {
      if (r.date! > parsed.closing.date) continue;
      const minor = r.minor ?? minorOf(byRow.get(r.row)?.amount ?? null, wallet.currency);
      // A row whose amount does not read leaves the statement's own sum unknown.
      if (minor === null) return null;
      sum += minor;
    }
    opening = closing - sum;
  }
  if (opening === null) return null;
  const sums = await ledgerSums(db, userId, { walletIds: [wallet.id], asOf: date });
  return { difference: opening - balanceOf(wallet, sums, date), date, stated: parsed.opening !== null };
}

export async function balanceGate(
  db: Knex,
  userId: string,
  wallet: WalletRow,
  parsed: ParsedStatement,
  rows: readonly PlannedEntry[],
  toCreate: readonly PlannedEntry[],
  reconciliation: Reconciliation | null,
): Promise<BalanceGate> {
  const moneyRows = rows.filter((r) => r.status === "invalid" && r.holdsMoney).map((r) => r.row);
  const issueRows = (parsed.balanceIssues?.issues ?? []).map((i) => i.row);
  // Read only when it matters (a difference to explain, money left out): a statement that agrees, or states no
  // balance and leaves nothing out, costs no query here (test/db/import-growth.test.ts).
  const opening = reconciliation === null || reconciliation.differenceMinor === 0n ? null : await openingDifference(db, userId, wallet, parsed, rows);
  // A wallet that already differed by as much before the statement's first row (from its stated or running
  // opening balance, else from the closing balance less its rows) is not this import's doing: the warning
  // says so, and the commit goes ahead. A difference this import makes waits for the person.
  // Not where the first row's sign is a guess (unsigned amounts signed by a running balance): the opening the
  // balance column gives follows the guess, so a wrong one looks like the wallet's own difference.
  const notReached =
    reconciliation !== null &&
    reconciliation.differenceMinor !== 0n &&
    (opening === null || opening.difference !== reconciliation.differenceMinor || parsed.signGuessed !== undefined);
  let date: string;
  let after: bigint;
  if (reconciliation !== null) {
    date = reconciliation.date;
    after = reconciliation.walletMinor;
  } else if (moneyRows.length === 0 && parsed.datesApart === undefined) {
    date = "";
    after = 0n;
  } else {
    const dates = rows.filter((r) => r.date !== null && r.status !== "not_booked").map((r) => r.date!);
    date = dates.reduce((m, d) => (d > m ? d : m), dates[0] ?? "1970-01-01");
    const sums = await ledgerSums(db, userId, { walletIds: [wallet.id], asOf: date });
    after = balanceOf(wallet, sums, date) + toCreate.filter((r) => r.date! <= date).reduce((n, r) => n + r.minor!, 0n);
  }
  return {
    date,
    balanceAfter: formatMinor(after, wallet.currency),
    afterMinor: after,
    moneyRows,
    issueRows,
    notReached,
    openingDifference: opening?.difference ?? null,
    openingStated: opening?.stated ?? false,
    openingDate: opening?.date ?? null,
  };
}

/** Whether the commit must wait for the person: money left out, or a closing balance the import does not reach. */
export const decisionNeeded = (gate: BalanceGate, skipInvalid: boolean, parsed?: ParsedStatement): boolean =>
  (skipInvalid && gate.moneyRows.length > 0) || gate.notReached || parsed?.datesApart !== undefined;

const list = (rows: readonly number[]) => {
  const shown = rows.slice(0, 8).join(", ");
  return rows.length > 8 ? `${shown} and ${rows.length - 8} more` : shown;
};

/** What the person decides, said once: for the preview's warning and the commit's refusal. */
export function decisionText(gate: BalanceGate, reconciliation: Reconciliation | null, parsed: ParsedStatement): string {
  const parts: string[] = [];
  const stated = reconciliation === null ? "" : `, where the statement says ${reconciliation.statement_balance} (difference ${reconciliation.difference})`;
  parts.push(`After this import the wallet's balance on ${gate.date} would be ${gate.balanceAfter}${stated}.`);
  if (gate.moneyRows.length > 0) parts.push(`Rows ${list(gate.moneyRows)} hold amounts but do not read, so they would be left out.`);
  if (gate.issueRows.length > 0) parts.push(`The balance column does not follow rows ${list(gate.issueRows)}.`);
  const guessed = parsed.signGuessed;
  if (guessed !== undefined && gate.notReached)
    parts.push(
      `Row ${guessed.row}'s amount is unsigned and no balance before it tells its direction: it was read as money ${guessed.sign}; if it is money ${guessed.sign === "out" ? "in" : "out"}, the balance differs by twice its amount.`,
    );
  const apart = parsed.datesApart;
  const order = (o: string) => o.replace("_", "-");
  if (apart !== undefined)
    parts.push(
      `Read ${order(apart.order)}, the rows run from ${apart.from} to ${apart.to}; read ${order(apart.other)}, they fall within ${apart.otherFrom} to ${apart.otherTo}, as a statement's rows do.`,
    );
  const fee = parsed.balanceIssues?.feeColumn;
  const fix =
    apart !== undefined
      ? `check mapping.date_order with the person (${JSON.stringify(apart.other)} keeps the rows within one month)`
      : fee !== null && fee !== undefined
        ? `send mapping.fee: ${JSON.stringify(fee)} (that column holds the difference)`
        : "check the answer's mapping and send a corrected one (the columns of the amount, its sign, debit and credit)";
  parts.push(`First ${fix}. If the person confirms ${gate.balanceAfter} instead, commit with expected_balance: "${gate.balanceAfter}".`);
  return parts.join(" ");
}

/** The commit's refusal when the person has not confirmed the balance it leads to. */
export function refuseUnconfirmed(
  gate: BalanceGate,
  reconciliation: Reconciliation | null,
  parsed: ParsedStatement,
  expected: string | undefined,
  currency: string,
): void {
  const confirmed = expected === undefined ? null : /^-?0*(\.0*)?$/.test(expected) ? 0n : minorOf(expected, currency);
  if (confirmed === gate.afterMinor) return;
  const given = expected === undefined ? "" : ` expected_balance is not the balance it leads to.`;
  throw invalidParams(
    "expected_balance",
    `the balance the import leads to, ${gate.balanceAfter}`,
    `expected_balance: nothing was imported.${given} ${decisionText(gate, reconciliation, parsed)}`,
  );
}
