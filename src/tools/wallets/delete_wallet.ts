import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares delete_wallet and no handler existed. Replace the body.
export const delete_wallet: Handlers["delete_wallet"] = async () => {
  throw notImplemented("delete_wallet");
};
