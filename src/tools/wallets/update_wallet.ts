import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares update_wallet and no handler existed. Replace the body.
export const update_wallet: Handlers["update_wallet"] = async () => {
  throw notImplemented("update_wallet");
};
