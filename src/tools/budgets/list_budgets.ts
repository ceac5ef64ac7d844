import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares list_budgets and no handler existed. Replace the body.
export const list_budgets: Handlers["list_budgets"] = async () => {
  throw notImplemented("list_budgets");
};
