import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares delete_bill_reminder and no handler existed. Replace the body.
export const delete_bill_reminder: Handlers["delete_bill_reminder"] = async () => {
  throw notImplemented("delete_bill_reminder");
};
