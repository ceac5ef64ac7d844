import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/shared/common.js";
import { billToApi, deleteBillRow, getBill } from "../../domain/bills/store.js";

/** Deletes the reminder for good (transactions untouched); the snapshot stays in the audit log. */
export const delete_bill_reminder: Handlers["delete_bill_reminder"] = async (params, ctx) => {
  const old = await getBill(ctx.db, ctx.caller.userId, params.bill_reminder_id);
  await deleteBillRow(ctx.db, old.userId, old.id);
  const snapshot = billToApi(old, todayFor(ctx));
  return {
    result: { bill_reminder: snapshot, warnings: [] },
    change: { action: "delete", resourceType: "bill_reminder", resourceId: old.id, before: snapshot, after: null },
  };
};
