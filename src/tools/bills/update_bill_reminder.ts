import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { updateBill } from "../../domain/bills/write.js";

export const update_bill_reminder: Handlers["update_bill_reminder"] = async (params, ctx) => {
  requireSomeChange("update_bill_reminder", "bill_reminder_id", params);
  const { before, after } = await updateBill(ctx, params);
  return {
    result: { bill_reminder: after, warnings: [] },
    change: { action: "update", resourceType: "bill_reminder", resourceId: after.id, before, after },
  };
};
