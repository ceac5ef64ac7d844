import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares update_budget and no handler existed. Replace the body.
export const update_budget: Handlers["update_budget"] = async () => {
  throw notImplemented("update_budget");
};
