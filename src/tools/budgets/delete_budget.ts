import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares delete_budget and no handler existed. Replace the body.
export const delete_budget: Handlers["delete_budget"] = async () => {
  throw notImplemented("delete_budget");
};
