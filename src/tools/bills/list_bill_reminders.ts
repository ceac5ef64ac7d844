import type { Handlers } from "../../../generated/handlers.js";
import { listBillReminders } from "../../domain/bills/read.js";

export const list_bill_reminders: Handlers["list_bill_reminders"] = async (params, ctx) => listBillReminders(ctx, params);
