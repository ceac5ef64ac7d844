/**
 * The private iCalendar feed (RFC 5545) of a person's bill reminders, made with ical-generator (a
 * maintained library: escaping, folding, VALARM and all-day dates are its job, not ours). Each due date
 * list_bill_reminders would show for a year ahead (and the last week's overdue ones) is an all-day event;
 * its alarm rings at 09:00 local time `notice_days` days before (the reminder's lead time; on the day
 * itself for 0). Events have stable UIDs (reminder id and date), so a calendar app updates them in place
 * when a reminder changes.
 *
 * When the person chose so on /account (issue 38 item 4; docs/decisions.md#recurring-decisions), the feed
 * also carries their confirmed regular payments (confirmed or corrected through set_recurring_series) that
 * no reminder covers (a covered one is already there as its reminder): each expected date
 * (seriesDates, the forecast's dates) an all-day event at the series' price, without an alarm (the person
 * asked for reminders only where they made one). UIDs: a hash of the series key and the date.
 */
import type { Knex } from "knex";
import ical, { ICalAlarmRelatesTo, ICalAlarmType, ICalCalendarMethod } from "ical-generator";
import { createHash } from "node:crypto";
import { plusDays } from "../../calendar/days.js";
import { toMoney } from "../../money/amount.js";
import { regularPayments, seriesDates } from "../recurring/series.js";
import { recurringInputs } from "../recurring/store.js";
import { listBills, upcomingOccurrences } from "../bills/store.js";

/** How far ahead the feed reaches: a year, so that yearly bills appear once. */
export const FEED_DAYS_AHEAD = 366;
const ALARM_HOUR = 9;

/** The feed as of the user's `today`; with `series`, their confirmed regular payments too. */
export async function billsCalendar(db: Knex, userId: string, today: string, options: { series?: boolean } = {}): Promise<string> {
  const bills = await listBills(db, userId, false);
  const byId = new Map(bills.map((b) => [b.id, b]));
  const cal = ical({ name: "Bills (finance-mcp)", prodId: { company: "finance-mcp", product: "bill-reminders" }, method: ICalCalendarMethod.PUBLISH });
  for (const occ of upcomingOccurrences(bills, today, FEED_DAYS_AHEAD)) {
    const bill = byId.get(occ.bill_reminder_id)!;
    const amount = occ.expected_amount
      ? occ.expected_amount.value + " " + occ.expected_amount.currency
      : occ.amount_min && occ.amount_max
        ? `${occ.amount_min.value}–${occ.amount_max.value} ${occ.amount_min.currency}`
        : "";
    const start = new Date(`${occ.due_date}T00:00:00Z`);
    const event = cal.createEvent({
      id: `${occ.bill_reminder_id}-${occ.due_date}@finance-mcp`,
      start,
      allDay: true,
      summary: `${occ.name} due${amount ? `: ${amount}` : ""}${occ.autopay ? " (autopay)" : ""}`,
      description: [occ.payee ? `Payee: ${occ.payee}` : undefined, bill.notes ?? undefined].filter(Boolean).join("\n") || undefined,
    });
    // Relative to the start of the due day (RELATED=START, also for a lead time of 0, where the trigger
    // is after the start): lead time days before, at 09:00 in the calendar's own time zone.
    event
      .createAlarm({ type: ICalAlarmType.display, trigger: bill.noticeDays * 86_400 - ALARM_HOUR * 3_600, description: event.summary() })
      .relatesTo(ICalAlarmRelatesTo.start);
  }
  if (options.series) {
    const { charges, bills: covering, decisions } = await recurringInputs(db, userId);
    const last = plusDays(today, FEED_DAYS_AHEAD - 1);
    for (const s of regularPayments(charges, covering, today, decisions)) {
      if ((s.decision !== "confirmed" && s.decision !== "corrected") || s.bill !== null) continue;
      const price = toMoney(s.priceMinor, s.currency);
      const uid = createHash("sha256").update(s.seriesKey).digest("hex").slice(0, 24);
      for (const date of seriesDates(s, today, last)) {
        cal.createEvent({
          id: `series-${uid}-${date}@finance-mcp`,
          start: new Date(`${date}T00:00:00Z`),
          allDay: true,
          summary: `${s.payee} ${s.direction === "income" ? "expected" : "due"}: ${price.value} ${price.currency}`,
          description: `Regular payment (${s.interval}), confirmed by you.`,
        });
      }
    }
  }
  // RFC 5545 §3.1: every content line ends with CRLF, the last (END:VCALENDAR) too; ical-generator 10.2.0
  // leaves that one bare, which strict clients reject (issue 39).
  const text = cal.toString();
  return text.endsWith("\r\n") ? text : `${text}\r\n`;
}
