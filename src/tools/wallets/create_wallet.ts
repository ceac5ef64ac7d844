import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares create_wallet and no handler existed. Replace the body.
export const create_wallet: Handlers["create_wallet"] = async () => {
  throw notImplemented("create_wallet");
};
