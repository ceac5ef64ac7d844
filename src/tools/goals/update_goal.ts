import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares update_goal and no handler existed. Replace the body.
export const update_goal: Handlers["update_goal"] = async () => {
  throw notImplemented("update_goal");
};
