import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { updateGoal } from "../../domain/goals/write.js";

export const update_goal: Handlers["update_goal"] = async (params, ctx) => {
  requireSomeChange("update_goal", "goal_id", params);
  const { before, after, warnings } = await updateGoal(ctx, params);
  return {
    result: { goal: after, warnings },
    change: { action: "update", resourceType: "goal", resourceId: after.id, before, after },
  };
};
