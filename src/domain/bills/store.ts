/**
 * Bill reminders: rows of `bill_reminders` ↔ records ↔ the contract's BillReminder objects, and the
 * expansion of their schedules into due dates (schedule.ts, on the stored RRULE + start date).
 *
 * Stored: `schedule` is the checked schedule as JSON (what the tool echoes back), `rrule` and
 * `start_date` are what expansion uses. A fixed bill has amount_minor; a variable one
 * amount_min_minor and amount_max_minor.
 */
import type { Knex } from "knex";
import type { BillOccurrence, BillReminder, BillSchedule } from "../../../generated/types.js";
import { invalidParams, notFound } from "../../errors.js";
import { toMinorBigInt, toMoney, type MinorLike } from "../../money/amount.js";
import { nullableText } from "../shared/text.js";
import {
  addDays,
  daysBetween,
  describeSchedule,
  nextOccurrences,
  occurrencesBetween,
  type Schedule,
  ScheduleError,
  toRRule,
  validateSchedule,
} from "./schedule.js";

export interface BillRecord {
  id: string;
  userId: string;
  name: string;
  payee: string | null;
  amountMinor: bigint | null;
  amountMinMinor: bigint | null;
  amountMaxMinor: bigint | null;
  currency: string;
  walletId: string | null;
  category: string | null;
  schedule: Schedule;
  rrule: string;
  noticeDays: number;
  autopay: boolean;
  active: boolean;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Overdue due dates are shown for this many days back (list_bill_reminders). */
export const OVERDUE_DAYS = 7;

function minorOrNull(v: unknown): bigint | null {
  return v === null || v === undefined ? null : toMinorBigInt(v as MinorLike);
}

/** SQLite hands booleans back as 0n/1n (safe integers), Postgres as booleans. */
function flag(v: unknown): boolean {
  return v === true || v === 1 || v === 1n || v === "1" || v === "true" || v === "t";
}

export function rowToBill(row: Record<string, unknown>): BillRecord {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    name: String(row.name),
    payee: nullableText(row.payee),
    amountMinor: minorOrNull(row.amount_minor),
    amountMinMinor: minorOrNull(row.amount_min_minor),
    amountMaxMinor: minorOrNull(row.amount_max_minor),
    currency: String(row.currency),
    walletId: nullableText(row.wallet_id),
    category: nullableText(row.category),
    schedule: JSON.parse(String(row.schedule)) as Schedule,
    rrule: String(row.rrule),
    noticeDays: Number(row.notice_days),
    autopay: flag(row.autopay),
    active: flag(row.active),
    notes: nullableText(row.notes),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

function billToRow(b: BillRecord): Record<string, unknown> {
  return {
    id: b.id,
    user_id: b.userId,
    name: b.name,
    payee: b.payee,
    amount_minor: b.amountMinor,
    amount_min_minor: b.amountMinMinor,
    amount_max_minor: b.amountMaxMinor,
    currency: b.currency,
    wallet_id: b.walletId,
    category: b.category,
    schedule: JSON.stringify(b.schedule),
    rrule: b.rrule,
    start_date: b.schedule.start_date,
    notice_days: b.noticeDays,
    autopay: b.autopay,
    active: b.active,
    notes: b.notes,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

/**
 * A schedule from the tool boundary, checked, with its RRULE. Refuses (invalid_params) what
 * validateSchedule refuses and a series that has no due date at all (an end before the first match).
 */
export function checkSchedule(input: unknown, field = "schedule"): { schedule: Schedule; rrule: string } {
  try {
    const schedule = validateSchedule(input, field);
    const rrule = toRRule(schedule);
    if (nextOccurrences(rrule, schedule.start_date, schedule.start_date, 1, true).length === 0) {
      throw invalidParams(
        `${field}.end_date`,
        "an end_date on or after the first due date",
        `${field}.end_date: the series ends (${schedule.end_date ?? "?"}) before its first due date, so the bill would never be due; move end_date later or change the day.`,
      );
    }
    return { schedule, rrule };
  } catch (err) {
    if (err instanceof ScheduleError) throw invalidParams(err.field, err.expected, err.message);
    throw err;
  }
}

/** The next `n` due dates on or after `today`; none for an inactive reminder. */
export function nextDueDates(b: BillRecord, today: string, n = 3): string[] {
  if (!b.active) return [];
  return nextOccurrences(b.rrule, b.schedule.start_date, today, n, true);
}

/** The contract's BillReminder, with next_due_dates counted from `today`. */
export function billToApi(b: BillRecord, today: string): BillReminder {
  return {
    id: b.id,
    name: b.name,
    payee: b.payee,
    amount: b.amountMinor === null ? null : toMoney(b.amountMinor, b.currency),
    amount_min: b.amountMinMinor === null ? null : toMoney(b.amountMinMinor, b.currency),
    amount_max: b.amountMaxMinor === null ? null : toMoney(b.amountMaxMinor, b.currency),
    currency: b.currency,
    wallet_id: b.walletId,
    category: b.category,
    schedule: { ...b.schedule } as BillSchedule,
    schedule_text: describeSchedule(b.schedule),
    next_due_dates: nextDueDates(b, today) as BillReminder["next_due_dates"],
    notice_days: b.noticeDays,
    autopay: b.autopay,
    notes: b.notes,
    active: b.active,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

/**
 * Due dates of active reminders from today − OVERDUE_DAYS through today + daysAhead, in the order
 * due date, name, id. Dates before today are overdue (payments are not tracked).
 */
export function upcomingOccurrences(bills: readonly BillRecord[], today: string, daysAhead: number): BillOccurrence[] {
  const from = addDays(today, -OVERDUE_DAYS);
  const to = addDays(today, daysAhead);
  const out: { occ: BillOccurrence; id: string }[] = [];
  for (const b of bills) {
    if (!b.active) continue;
    for (const due of occurrencesBetween(b.rrule, b.schedule.start_date, from, to)) {
      const days = daysBetween(today, due);
      out.push({
        id: b.id,
        occ: {
          bill_reminder_id: b.id,
          name: b.name,
          payee: b.payee,
          due_date: due,
          days_until_due: days,
          autopay: b.autopay,
          in_notice_period: days >= 0 && days <= b.noticeDays,
          overdue: days < 0,
          // The amounts last, the range after the fixed amount: a table's row stops at its last field (src/mcp/model-text.ts).
          expected_amount: b.amountMinor === null ? null : toMoney(b.amountMinor, b.currency),
          amount_min: b.amountMinMinor === null ? null : toMoney(b.amountMinMinor, b.currency),
          amount_max: b.amountMaxMinor === null ? null : toMoney(b.amountMaxMinor, b.currency),
        },
      });
    }
  }
  out.sort((a, b) =>
    a.occ.due_date < b.occ.due_date
      ? -1
      : a.occ.due_date > b.occ.due_date
        ? 1
        : a.occ.name.localeCompare(b.occ.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return out.map((o) => o.occ);
}

export async function insertBill(db: Knex, b: BillRecord): Promise<void> {
  await db("bill_reminders").insert(billToRow(b));
}

export async function updateBillRow(db: Knex, b: BillRecord): Promise<void> {
  const { id: _id, user_id: _user, created_at: _created, ...changes } = billToRow(b);
  await db("bill_reminders").where({ id: b.id, user_id: b.userId }).update(changes);
}

export async function deleteBillRow(db: Knex, userId: string, id: string): Promise<void> {
  await db("bill_reminders").where({ id, user_id: userId }).delete();
}

/** The user's reminder with this id, or not_found on `field`. */
export async function getBill(db: Knex, userId: string, id: string, field = "bill_reminder_id"): Promise<BillRecord> {
  const row = await db("bill_reminders").where({ id, user_id: userId }).first();
  if (!row) throw notFound("bill reminder", field, id);
  return rowToBill(row);
}

/** The user's reminders by name (active ones only unless includeInactive). */
export async function listBills(db: Knex, userId: string, includeInactive: boolean): Promise<BillRecord[]> {
  const q = db("bill_reminders").where({ user_id: userId });
  if (!includeInactive) q.andWhere({ active: true });
  const rows = await q.orderBy("id");
  return rows.map(rowToBill).sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || (a.id < b.id ? -1 : 1));
}

/** Checks the amount arguments: a fixed amount, or a minimum and a maximum (min ≤ max). */
export function checkAmountRange(min: bigint | null, max: bigint | null): void {
  if (min !== null && max !== null && min > max) {
    throw invalidParams("amount_max", "an amount not below amount_min", "amount_max: the highest expected amount is below amount_min; swap them or fix one.");
  }
}
