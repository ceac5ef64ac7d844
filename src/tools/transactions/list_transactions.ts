import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares list_transactions and no handler existed. Replace the body.
export const list_transactions: Handlers["list_transactions"] = async () => {
  throw notImplemented("list_transactions");
};
