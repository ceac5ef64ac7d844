import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares list_goals and no handler existed. Replace the body.
export const list_goals: Handlers["list_goals"] = async () => {
  throw notImplemented("list_goals");
};
