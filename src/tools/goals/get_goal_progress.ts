import type { Handlers } from "../../../generated/handlers.js";
import type { GoalProgress } from "../../../generated/types.js";
import { todayFor } from "../../domain/shared/common.js";
import { computeProgress, recentWindow } from "../../domain/goals/progress.js";
import { contributionToApi, goalSums, listContributions, listGoalRecords, getGoal } from "../../domain/goals/store.js";

/** One goal (archived included) or every goal that is not archived, as of today in the user's timezone. */
export const get_goal_progress: Handlers["get_goal_progress"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const today = todayFor(ctx);
  const goals = params.goal_id !== undefined ? [await getGoal(ctx.db, userId, params.goal_id)] : await listGoalRecords(ctx.db, userId, false);
  const sums = await goalSums(ctx.db, userId, goals.map((g) => g.id), recentWindow(today));
  const out: GoalProgress[] = [];
  for (const g of goals) {
    const s = sums.get(g.id) ?? { saved: 0n, recent: 0n, count: 0 };
    const latest = s.count === 0 ? [] : (await listContributions(ctx.db, userId, g.id, 5)).map((c) => contributionToApi(c, g.currency));
    out.push(computeProgress(g, s.saved, s.recent, latest, today));
  }
  return { as_of: today, goals: out };
};
