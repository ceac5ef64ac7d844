/**
 * For the ledger's writes (create_transaction's budget_over_limit warning): which of the user's budgets a
 * just-recorded expense pushed over their limit.
 *
 *   budgetsPushedOverLimit(db, userId, expense) → Warning[]   (code "budget_over_limit", one per budget)
 *
 * Call it inside the write's transaction AFTER inserting the expense. A budget counts when it is active on
 * the expense's date and the expense is in its scope (currency, category, tags, wallet; the same rules as
 * get_budget_status). Its period (the one containing the expense's date) is evaluated as a whole, up to the
 * period's end, so a back-dated expense is judged against everything else in that period; it was pushed
 * over when the period is over its limit (+ carried in) now and was not without this expense. The spending
 * of all those budgets comes from one statement (computeBudgetStatuses), and none runs when no budget is
 * in scope.
 */
import type { Knex } from "knex";
import type { BudgetStatus, Warning } from "../../../generated/types.js";
import { formatMinor } from "../../money/amount.js";
import { foldKey } from "../shared/text.js";
import { computeBudgetStatuses, statusWindow } from "./status.js";
import { budgetActiveOn, listBudgetRecords, type BudgetRecord } from "./store.js";

export interface RecordedExpense {
  date: string;
  currency: string;
  /** Positive magnitude in minor units. */
  amountMinor: bigint;
  walletId: string;
  category: string | null;
  tags: readonly string[];
}

/** Whether an expense is in the budget's scope (every non-empty list must match). */
export function expenseInScope(b: BudgetRecord, e: RecordedExpense): boolean {
  if (b.currency !== e.currency) return false;
  if (b.categories.length > 0 && (e.category === null || !b.categories.some((c) => foldKey(c) === foldKey(e.category as string)))) return false;
  if (b.tags.length > 0) {
    const tags = new Set(e.tags.map(foldKey));
    if (!b.tags.some((t) => tags.has(foldKey(t)))) return false;
  }
  if (b.walletIds.length > 0 && !b.walletIds.includes(e.walletId)) return false;
  return true;
}

export async function budgetsPushedOverLimit(db: Knex, userId: string, e: RecordedExpense): Promise<Warning[]> {
  const affected = (await listBudgetRecords(db, userId)).filter((b) => budgetActiveOn(b, e.date) && expenseInScope(b, e));
  // Most expenses fall into no budget: then there is nothing to sum.
  if (affected.length === 0) return [];
  // One spending statement for all of them, each evaluated to the end of its period.
  const statuses = await computeBudgetStatuses(
    db,
    userId,
    affected.map((b) => ({ budget: b, asOf: statusWindow(b, e.date).periodEnd })),
  );
  return affected.flatMap((b, i) => overLimitWarning(b, statuses[i] as BudgetStatus, e.amountMinor) ?? []);
}

/** The warning when the period's status (the expense included) is over its limit and was not without it. */
export function overLimitWarning(b: BudgetRecord, s: BudgetStatus, amountMinor: bigint): Warning | undefined {
  const base = BigInt(s.limit.minor) + BigInt(s.carried_in.minor);
  const spent = BigInt(s.spent.minor);
  if (spent <= base || spent - amountMinor > base) return undefined;
  return {
    code: "budget_over_limit",
    message: `This expense takes budget "${b.name}" over its limit for ${s.period_start}..${s.period_end}: ${formatMinor(spent, b.currency)} spent of ${formatMinor(base, b.currency)} ${b.currency}.`,
  };
}
