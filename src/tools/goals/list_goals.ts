import type { Handlers } from "../../../generated/handlers.js";
import { listGoals } from "../../domain/goals/read.js";

export const list_goals: Handlers["list_goals"] = async (params, ctx) => listGoals(ctx, params);
