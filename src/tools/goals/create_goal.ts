import type { Handlers } from "../../../generated/handlers.js";
import { createGoal } from "../../domain/goals/write.js";

/** A new goal starts active with nothing saved; money is recorded with add_goal_funds. */
export const create_goal: Handlers["create_goal"] = async (params, ctx) => {
  const goal = await createGoal(ctx, params);
  return {
    result: { goal, warnings: [] },
    change: { action: "create", resourceType: "goal", resourceId: goal.id, before: null, after: goal },
  };
};
