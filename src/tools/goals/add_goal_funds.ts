import type { Handlers } from "../../../generated/handlers.js";
import { addGoalFunds } from "../../domain/goals/write.js";

/** One contribution, and the transfer when money moves between wallets (src/domain/goals/write.ts). */
export const add_goal_funds: Handlers["add_goal_funds"] = async (params, ctx) => {
  const { before, goal, contribution, transaction, warnings } = await addGoalFunds(ctx, params);
  return {
    result: { goal, contribution, transaction, warnings },
    change: { action: "add_funds", resourceType: "goal", resourceId: goal.id, before, after: { ...goal, contribution } },
  };
};
