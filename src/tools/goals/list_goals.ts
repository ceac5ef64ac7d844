import type { Handlers } from "../../../generated/handlers.js";
import { goalSums, goalToApi, listGoalRecords } from "../../domain/goals/store.js";

/** The user's goals by name with their saved amounts (one SUM per goal, one query); archived ones on request. */
export const list_goals: Handlers["list_goals"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const goals = await listGoalRecords(ctx.db, userId, params.include_archived === true);
  const sums = await goalSums(ctx.db, userId, goals.map((g) => g.id));
  return { goals: goals.map((g) => goalToApi(g, sums.get(g.id)?.saved ?? 0n)) };
};
