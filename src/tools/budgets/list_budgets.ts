import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/shared/common.js";
import { computeBudgetStatuses } from "../../domain/budgets/status.js";
import { budgetActiveOn, budgetToApi, listBudgetRecords } from "../../domain/budgets/store.js";

/** Every budget by name; with include_status (default) the status of those active today. */
export const list_budgets: Handlers["list_budgets"] = async (params, ctx) => {
  const records = await listBudgetRecords(ctx.db, ctx.caller.userId);
  const today = todayFor(ctx);
  const withStatus = params.include_status !== false;
  const active = withStatus ? records.filter((b) => budgetActiveOn(b, today)) : [];
  const statuses = new Map((await computeBudgetStatuses(ctx.db, ctx.caller.userId, active.map((b) => ({ budget: b, asOf: today })))).map((s) => [s.budget_id, s]));
  const budgets = records.map((b) => budgetToApi(b, statuses.get(b.id)));
  return { budgets };
};
