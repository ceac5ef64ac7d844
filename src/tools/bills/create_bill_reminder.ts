import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares create_bill_reminder and no handler existed. Replace the body.
export const create_bill_reminder: Handlers["create_bill_reminder"] = async () => {
  throw notImplemented("create_bill_reminder");
};
