import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/shared/common.js";
import { billToApi, listBills, upcomingOccurrences } from "../../domain/bills/store.js";

/**
 * Due dates from today through today + days_ahead (plus the last 7 days as overdue) of active reminders,
 * and the reminders themselves; "today" is the user's calendar day. upcoming: false skips the due dates
 * (a model that wants the reminders, yearly ones included, need not expand a year of occurrences).
 */
export const list_bill_reminders: Handlers["list_bill_reminders"] = async (params, ctx) => {
  const today = todayFor(ctx);
  const bills = await listBills(ctx.db, ctx.caller.userId, params.include_inactive === true);
  return {
    upcoming: params.upcoming === false ? [] : upcomingOccurrences(bills, today, params.days_ahead ?? 30),
    reminders: bills.map((b) => billToApi(b, today)),
  };
};
