import type { Handlers } from "../../../generated/handlers.js";
import { budgetToApi, deleteBudgetRow, getBudget } from "../../domain/budgets/store.js";

/** Deletes the definition only; transactions are never touched. The snapshot stays in the audit log. */
export const delete_budget: Handlers["delete_budget"] = async (params, ctx) => {
  const old = await getBudget(ctx.db, ctx.caller.userId, params.budget_id);
  await deleteBudgetRow(ctx.db, old.userId, old.id);
  const snapshot = budgetToApi(old);
  return {
    result: { budget: snapshot, warnings: [] },
    change: { action: "delete", resourceType: "budget", resourceId: old.id, before: snapshot, after: null },
  };
};
