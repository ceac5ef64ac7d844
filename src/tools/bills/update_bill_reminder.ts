import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares update_bill_reminder and no handler existed. Replace the body.
export const update_bill_reminder: Handlers["update_bill_reminder"] = async () => {
  throw notImplemented("update_bill_reminder");
};
