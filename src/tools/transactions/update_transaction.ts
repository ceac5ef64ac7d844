import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares update_transaction and no handler existed. Replace the body.
export const update_transaction: Handlers["update_transaction"] = async () => {
  throw notImplemented("update_transaction");
};
