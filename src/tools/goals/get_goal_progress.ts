import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares get_goal_progress and no handler existed. Replace the body.
export const get_goal_progress: Handlers["get_goal_progress"] = async () => {
  throw notImplemented("get_goal_progress");
};
