import type { Handlers } from "../../../generated/handlers.js";
import { deleteBudget } from "../../domain/budgets/write.js";

/** Deletes the definition only; transactions are never touched. The snapshot stays in the audit log. */
export const delete_budget: Handlers["delete_budget"] = async (params, ctx) => {
  const budget = await deleteBudget(ctx, params);
  return {
    result: { budget, warnings: [] },
    change: { action: "delete", resourceType: "budget", resourceId: budget.id, before: budget, after: null },
  };
};
