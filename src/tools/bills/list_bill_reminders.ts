import type { Handlers } from "../../../generated/handlers.js";
import { notImplemented } from "../../errors.js";

// Created by codegen because openrpc.json declares list_bill_reminders and no handler existed. Replace the body.
export const list_bill_reminders: Handlers["list_bill_reminders"] = async () => {
  throw notImplemented("list_bill_reminders");
};
