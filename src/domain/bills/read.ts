/** list_bill_reminders: the reminders, and the due dates around the caller's today. */
import type { ListBillRemindersParams, ListBillRemindersResult } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { billToApi, listBills, upcomingOccurrences } from "./store.js";

/**
 * Due dates from today through today + days_ahead (plus the last 7 days as overdue) of active reminders,
 * and the reminders themselves; "today" is the user's calendar day. upcoming: false skips the due dates
 * (a model that wants the reminders, yearly ones included, need not expand a year of occurrences).
 */
export async function listBillReminders(ctx: DomainContext, params: ListBillRemindersParams): Promise<ListBillRemindersResult> {
  const today = todayOf(ctx);
  const bills = await listBills(ctx.db, ctx.caller.userId, params.include_inactive === true);
  return {
    upcoming: params.upcoming === false ? [] : upcomingOccurrences(bills, today, params.days_ahead ?? 30),
    reminders: bills.map((b) => billToApi(b, today)),
  };
}
