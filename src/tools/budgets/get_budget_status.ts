import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares get_budget_status and no handler existed. Replace the body.
export const get_budget_status: Handlers["get_budget_status"] = async () => {
  throw notImplemented("get_budget_status");
};
