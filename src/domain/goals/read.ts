/**
 * The goal reads: the goals with their saved amounts (list_goals), and their progress as of the
 * caller's today (get_goal_progress).
 */
import type { GetGoalProgressParams, GetGoalProgressResult, GoalProgress, ListGoalsParams, ListGoalsResult } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { computeProgress, recentWindow } from "./progress.js";
import { contributionToApi, getGoal, goalSums, goalToApi, listContributions, listGoalRecords } from "./store.js";

/** The user's goals by name with their saved amounts (one SUM per goal, one query); archived ones on request. */
export async function listGoals(ctx: DomainContext, params: ListGoalsParams): Promise<ListGoalsResult> {
  const userId = ctx.caller.userId;
  const goals = await listGoalRecords(ctx.db, userId, params.include_archived === true);
  const sums = await goalSums(
    ctx.db,
    userId,
    goals.map((g) => g.id),
  );
  return { goals: goals.map((g) => goalToApi(g, sums.get(g.id)?.saved ?? 0n)) };
}

/** One goal (archived included) or every goal that is not archived, as of today in the user's timezone. */
export async function goalProgress(ctx: DomainContext, params: GetGoalProgressParams): Promise<GetGoalProgressResult> {
  const userId = ctx.caller.userId;
  const today = todayInTimeZone(ctx.caller.timezone, ctx.now());
  const goals = params.goal_id !== undefined ? [await getGoal(ctx.db, userId, params.goal_id)] : await listGoalRecords(ctx.db, userId, false);
  const sums = await goalSums(
    ctx.db,
    userId,
    goals.map((g) => g.id),
    recentWindow(today),
  );
  const out: GoalProgress[] = [];
  for (const g of goals) {
    const s = sums.get(g.id) ?? { saved: 0n, recent: 0n, count: 0 };
    const latest = s.count === 0 ? [] : (await listContributions(ctx.db, userId, g.id, 5)).map((c) => contributionToApi(c, g.currency));
    out.push(computeProgress(g, s.saved, s.recent, latest, today));
  }
  return { as_of: today, goals: out };
}
