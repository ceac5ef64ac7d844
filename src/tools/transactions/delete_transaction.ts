import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares delete_transaction and no handler existed. Replace the body.
export const delete_transaction: Handlers["delete_transaction"] = async () => {
  throw notImplemented("delete_transaction");
};
