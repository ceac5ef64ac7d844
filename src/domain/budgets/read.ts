/**
 * The budget reads: every budget with the status of those active today (list_budgets), and the status
 * of one budget or of every budget active on a day (get_budget_status). "Today" is the caller's day.
 */
import type { GetBudgetStatusParams, GetBudgetStatusResult, ListBudgetsParams, ListBudgetsResult } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { invalidParams } from "../../errors.js";
import { computeBudgetStatuses } from "./status.js";
import { budgetActiveOn, budgetToApi, getBudget, listBudgetRecords } from "./store.js";

/** Every budget by name; with include_status (default) the status of those active today. */
export async function listBudgets(ctx: DomainContext, params: ListBudgetsParams): Promise<ListBudgetsResult> {
  const userId = ctx.caller.userId;
  const records = await listBudgetRecords(ctx.db, userId);
  const today = todayOf(ctx);
  const active = params.include_status !== false ? records.filter((b) => budgetActiveOn(b, today)) : [];
  const statuses = new Map(
    (
      await computeBudgetStatuses(
        ctx.db,
        userId,
        active.map((b) => ({ budget: b, asOf: today })),
      )
    ).map((s) => [s.budget_id, s]),
  );
  return { budgets: records.map((b) => budgetToApi(b, statuses.get(b.id))) };
}

/** One budget (as_of must lie in its dates) or every budget active on as_of (default today). */
export async function getBudgetStatus(ctx: DomainContext, params: GetBudgetStatusParams): Promise<GetBudgetStatusResult> {
  const userId = ctx.caller.userId;
  const asOf = params.as_of ?? todayOf(ctx);
  if (params.budget_id !== undefined) {
    const b = await getBudget(ctx.db, userId, params.budget_id);
    if (!budgetActiveOn(b, asOf)) {
      const range = `${b.startDate}..${b.endDate ?? "(no end)"}`;
      throw invalidParams(
        "as_of",
        `a day within the budget's dates ${range}`,
        `as_of: budget ${b.id} applies ${range}, so ${asOf} has no period; choose a day within those dates.`,
      );
    }
    return { as_of: asOf, budgets: await computeBudgetStatuses(ctx.db, userId, [{ budget: b, asOf }]) };
  }
  const active = (await listBudgetRecords(ctx.db, userId)).filter((b) => budgetActiveOn(b, asOf));
  return {
    as_of: asOf,
    budgets: await computeBudgetStatuses(
      ctx.db,
      userId,
      active.map((b) => ({ budget: b, asOf })),
    ),
  };
}
