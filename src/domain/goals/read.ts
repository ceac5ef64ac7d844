/**
 * The goal reads: the goals with their saved amounts (list_goals), and their progress as of the
 * caller's today (get_goal_progress).
 */
import type { GetGoalProgressParams, GetGoalProgressResult, GoalProgress, ListGoalsParams, ListGoalsResult } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { computeProgress, recentWindow } from "./progress.js";
import { contributionToApi, goalsWithSums, goalToApi } from "./store.js";

/** The user's goals by name with their saved amounts, in one statement (goalsWithSums); archived ones on request. */
export async function listGoals(ctx: DomainContext, params: ListGoalsParams): Promise<ListGoalsResult> {
  const goals = await goalsWithSums(ctx.db, ctx.caller.userId, { includeArchived: params.include_archived === true });
  return { goals: goals.map(({ goal, sums }) => goalToApi(goal, sums.saved)) };
}

/**
 * One goal (archived included) or every goal that is not archived, as of today in the user's timezone:
 * the goals, their sums and their five latest contributions in one statement (goalsWithSums).
 */
export async function goalProgress(ctx: DomainContext, params: GetGoalProgressParams): Promise<GetGoalProgressResult> {
  const today = todayOf(ctx);
  const goals = await goalsWithSums(
    ctx.db,
    ctx.caller.userId,
    params.goal_id !== undefined ? { goalId: params.goal_id, field: "goal_id" } : { includeArchived: false },
    { window: recentWindow(today), latest: 5 },
  );
  const out: GoalProgress[] = goals.map(({ goal: g, sums: s, latest }) =>
    computeProgress(
      g,
      s.saved,
      s.recent,
      latest.map((c) => contributionToApi(c, g.currency)),
      today,
    ),
  );
  return { as_of: today, goals: out };
}
