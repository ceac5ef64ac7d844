import type { Handlers } from "../../../generated/handlers.js";
import { createBill } from "../../domain/bills/write.js";

export const create_bill_reminder: Handlers["create_bill_reminder"] = async (params, ctx) => {
  const reminder = await createBill(ctx, params);
  return {
    result: { bill_reminder: reminder, warnings: [] },
    change: { action: "create", resourceType: "bill_reminder", resourceId: reminder.id, before: null, after: reminder },
  };
};
