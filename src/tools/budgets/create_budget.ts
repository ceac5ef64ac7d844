import type { Handlers } from "../../../generated/handlers.js";
import { createBudget } from "../../domain/budgets/write.js";

export const create_budget: Handlers["create_budget"] = async (params, ctx) => {
  const { budget, warnings, after } = await createBudget(ctx, params);
  return {
    result: { budget, warnings },
    change: { action: "create", resourceType: "budget", resourceId: budget.id, before: null, after },
  };
};
