import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares get_wallet_balance and no handler existed. Replace the body.
export const get_wallet_balance: Handlers["get_wallet_balance"] = async () => {
  throw notImplemented("get_wallet_balance");
};
