import type { Handlers } from "../../../generated/handlers.js";
import { contributionsRemovedWarning } from "../../domain/goals/warnings.js";
import { contributionToApi, deleteGoalRows, goalToApi, listContributions, getGoal } from "../../domain/goals/store.js";

/**
 * Deletes the goal and its contributions; wallet transactions recorded by add_goal_funds stay. The audit
 * row's before snapshot carries every contribution, so the history stays in the audit log.
 */
export const delete_goal: Handlers["delete_goal"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const old = await getGoal(ctx.db, userId, params.goal_id);
  const contributions = await listContributions(ctx.db, userId, old.id);
  const saved = contributions.reduce((s, c) => s + c.amountMinor, 0n);
  await deleteGoalRows(ctx.db, userId, old.id);
  const goal = goalToApi(old, saved);
  return {
    result: { goal, warnings: contributions.length > 0 ? [contributionsRemovedWarning(contributions.length, saved, old.currency, ctx.dryRun)] : [] },
    change: {
      action: "delete",
      resourceType: "goal",
      resourceId: old.id,
      before: { ...goal, contributions: contributions.map((c) => contributionToApi(c, old.currency)) },
      after: null,
    },
  };
};
