import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/budgets/common.js";
import { computeBudgetStatus } from "../../domain/budgets/status.js";
import { budgetActiveOn, budgetToApi, listBudgetRecords } from "../../domain/budgets/store.js";

/** Every budget by name; with include_status (default) the status of those active today. */
export const list_budgets: Handlers["list_budgets"] = async (params, ctx) => {
  const records = await listBudgetRecords(ctx.db, ctx.caller.userId);
  const today = todayFor(ctx);
  const withStatus = params.include_status !== false;
  const budgets = [];
  for (const b of records) {
    const status = withStatus && budgetActiveOn(b, today) ? await computeBudgetStatus(ctx.db, b, today) : undefined;
    budgets.push(budgetToApi(b, status));
  }
  return { budgets };
};
