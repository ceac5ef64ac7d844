import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares create_budget and no handler existed. Replace the body.
export const create_budget: Handlers["create_budget"] = async () => {
  throw notImplemented("create_budget");
};
