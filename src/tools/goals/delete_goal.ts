import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares delete_goal and no handler existed. Replace the body.
export const delete_goal: Handlers["delete_goal"] = async () => {
  throw notImplemented("delete_goal");
};
