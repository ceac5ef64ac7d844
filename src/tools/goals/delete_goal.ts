import type { Handlers } from "../../../generated/handlers.js";
import { deleteGoal } from "../../domain/goals/write.js";

/** Deletes the goal and its contributions; the audit row's before snapshot keeps every contribution. */
export const delete_goal: Handlers["delete_goal"] = async (params, ctx) => {
  const { goal, contributions, warnings } = await deleteGoal(ctx, params);
  return {
    result: { goal, warnings },
    change: { action: "delete", resourceType: "goal", resourceId: goal.id, before: { ...goal, contributions }, after: null },
  };
};
