import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares get_transaction_summary and no handler existed. Replace the body.
export const get_transaction_summary: Handlers["get_transaction_summary"] = async () => {
  throw notImplemented("get_transaction_summary");
};
