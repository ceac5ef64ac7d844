import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares create_goal and no handler existed. Replace the body.
export const create_goal: Handlers["create_goal"] = async () => {
  throw notImplemented("create_goal");
};
