import type { BudgetStatus, Warning } from "../../../generated/types.js";

/** The non-blocking remark a budget write adds when the budget is already over its limit. */
export function overLimitWarnings(status: BudgetStatus | undefined): Warning[] {
  if (!status?.over_budget) return [];
  return [
    {
      code: "budget_over_limit",
      message: `Budget "${status.name}" is already over its limit in the period ${status.period_start}..${status.period_end}: spent ${status.spent.value} of ${status.limit.value} ${status.limit.currency}${status.carried_in.minor > 0 ? ` plus ${status.carried_in.value} carried in` : ""}.`,
    },
  ];
}
