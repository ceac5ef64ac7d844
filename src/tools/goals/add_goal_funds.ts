import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares add_goal_funds and no handler existed. Replace the body.
export const add_goal_funds: Handlers["add_goal_funds"] = async () => {
  throw notImplemented("add_goal_funds");
};
