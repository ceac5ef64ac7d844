import type { Handlers } from "../../../generated/handlers.js";
import { invalidParams } from "../../errors.js";
import { todayFor } from "../../domain/shared/common.js";
import { computeBudgetStatuses } from "../../domain/budgets/status.js";
import { budgetActiveOn, listBudgetRecords, getBudget } from "../../domain/budgets/store.js";

/** One budget (as_of must lie in its dates) or every budget active on as_of (default today, user's timezone). */
export const get_budget_status: Handlers["get_budget_status"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const asOf = params.as_of ?? todayFor(ctx);
  if (params.budget_id !== undefined) {
    const b = await getBudget(ctx.db, userId, params.budget_id);
    if (!budgetActiveOn(b, asOf)) {
      const range = `${b.startDate}..${b.endDate ?? "(no end)"}`;
      throw invalidParams("as_of", `a day within the budget's dates ${range}`, `as_of: budget ${b.id} applies ${range}, so ${asOf} has no period; choose a day within those dates.`);
    }
    return { as_of: asOf, budgets: await computeBudgetStatuses(ctx.db, userId, [{ budget: b, asOf }]) };
  }
  const active = (await listBudgetRecords(ctx.db, userId)).filter((b) => budgetActiveOn(b, asOf));
  return { as_of: asOf, budgets: await computeBudgetStatuses(ctx.db, userId, active.map((b) => ({ budget: b, asOf }))) };
};
