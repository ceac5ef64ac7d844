import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares create_transaction and no handler existed. Replace the body.
export const create_transaction: Handlers["create_transaction"] = async () => {
  throw notImplemented("create_transaction");
};
