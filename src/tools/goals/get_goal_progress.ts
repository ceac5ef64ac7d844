import type { Handlers } from "../../../generated/handlers.js";
import { goalProgress } from "../../domain/goals/read.js";

export const get_goal_progress: Handlers["get_goal_progress"] = async (params, ctx) => goalProgress(ctx, params);
