import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares list_wallets and no handler existed. Replace the body.
export const list_wallets: Handlers["list_wallets"] = async () => {
  throw notImplemented("list_wallets");
};
