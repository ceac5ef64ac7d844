import type { Handlers } from "../../../generated/handlers.js";
import { deleteBill } from "../../domain/bills/write.js";

/** Deletes the reminder for good (transactions untouched); the snapshot stays in the audit log. */
export const delete_bill_reminder: Handlers["delete_bill_reminder"] = async (params, ctx) => {
  const snapshot = await deleteBill(ctx, params);
  return {
    result: { bill_reminder: snapshot, warnings: [] },
    change: { action: "delete", resourceType: "bill_reminder", resourceId: snapshot.id, before: snapshot, after: null },
  };
};
