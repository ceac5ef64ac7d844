import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { updateBudget } from "../../domain/budgets/write.js";

export const update_budget: Handlers["update_budget"] = async (params, ctx) => {
  requireSomeChange("update_budget", "budget_id", params);
  const { budget, warnings, before, after } = await updateBudget(ctx, params);
  return {
    result: { budget, warnings },
    change: { action: "update", resourceType: "budget", resourceId: budget.id, before, after },
  };
};
