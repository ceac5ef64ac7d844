/**
 * The bill-reminder writes: create, update and delete, with their rules (a name unique per user, a
 * fixed amount or a range in the bill's currency, a wallet of that currency, a schedule with at least
 * one due date). Each answers the reminder as the tools answer it, next due dates counted from the
 * caller's today. Updates and deletes lock the row first (lockRow).
 */
import type { BillReminder, CreateBillReminderParams, UpdateBillReminderParams } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { invalidParams } from "../../errors.js";
import { parseAmountParam, requireKnownCurrency } from "../shared/amounts.js";
import { assertNameFree, assertSameCurrency, bindShownRecord, lockRow } from "../shared/common.js";
import { cleanText } from "../shared/text.js";
import { getWalletRow } from "../wallets/store.js";
import { billToApi, checkAmountRange, checkSchedule, deleteBillRow, getBill, insertBill, updateBillRow, type BillRecord } from "./store.js";
import { checkNamedCurrency } from "../wallets/currency.js";

export async function createBill(ctx: DomainContext, params: CreateBillReminderParams): Promise<BillReminder> {
  const userId = ctx.caller.userId;
  const wallet = params.wallet_id !== undefined ? await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id") : null;
  const currency = requireKnownCurrency(params.currency ?? wallet?.currency ?? ctx.caller.defaultCurrency);
  if (wallet) assertSameCurrency(wallet, currency, "wallet_id", "bill");

  const variable = params.amount_min !== undefined || params.amount_max !== undefined;
  if (params.amount !== undefined && variable) {
    throw invalidParams(
      "amount",
      "either amount, or amount_min with amount_max",
      "amount: give either a fixed amount or amount_min and amount_max for a variable bill, not both.",
    );
  }
  if (params.amount === undefined && !variable) {
    throw invalidParams(
      "amount",
      'a fixed amount such as "900.00", or amount_min with amount_max',
      "amount: a bill needs an amount, or amount_min and amount_max when it varies.",
    );
  }
  if (variable && (params.amount_min === undefined || params.amount_max === undefined)) {
    const missing = params.amount_min === undefined ? "amount_min" : "amount_max";
    throw invalidParams(missing, "both amount_min and amount_max for a variable bill", `${missing}: a variable bill needs both amount_min and amount_max.`);
  }
  const amountMinor = params.amount !== undefined ? parseAmountParam(params.amount, currency, "amount") : null;
  const amountMinMinor = params.amount_min !== undefined ? parseAmountParam(params.amount_min, currency, "amount_min") : null;
  const amountMaxMinor = params.amount_max !== undefined ? parseAmountParam(params.amount_max, currency, "amount_max") : null;
  checkAmountRange(amountMinMinor, amountMaxMinor);
  const { schedule, rrule } = checkSchedule(params.schedule);
  await assertNameFree(ctx.db, "bill_reminders", userId, params.name);

  const at = ctx.now().toISOString();
  const rec: BillRecord = {
    id: ctx.ids.next("bil"),
    userId,
    name: cleanText(params.name),
    payee: params.payee?.trim() ?? null,
    amountMinor,
    amountMinMinor,
    amountMaxMinor,
    currency,
    walletId: wallet?.id ?? null,
    category: params.category?.trim() ?? null,
    schedule,
    rrule,
    noticeDays: params.notice_days ?? 3,
    autopay: params.autopay ?? false,
    active: true,
    notes: params.notes ?? null,
    createdAt: at,
    updatedAt: at,
  };
  await insertBill(ctx.db, rec);
  return billToApi(rec, todayOf(ctx));
}

/** Only the fields given change; the caller has checked that something is given. */
export async function updateBill(ctx: DomainContext, params: UpdateBillReminderParams): Promise<{ before: BillReminder; after: BillReminder }> {
  const userId = ctx.caller.userId;
  await lockRow(ctx.db, "bill_reminders", userId, params.bill_reminder_id);
  const old = await getBill(ctx.db, userId, params.bill_reminder_id);
  await checkNamedCurrency(ctx.db, userId, params.currency, old.currency, `bill reminder ${JSON.stringify(old.name)}`);
  const next: BillRecord = { ...old, updatedAt: ctx.now().toISOString() };

  if (params.name !== undefined) {
    await assertNameFree(ctx.db, "bill_reminders", userId, params.name, old.id);
    next.name = cleanText(params.name);
  }
  if (params.payee !== undefined) next.payee = params.payee === null ? null : params.payee.trim();
  if (params.category !== undefined) next.category = params.category === null ? null : params.category.trim();
  if (params.notes !== undefined) next.notes = params.notes;
  if (params.wallet_id !== undefined) {
    if (params.wallet_id === null) next.walletId = null;
    else {
      const wallet = await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id");
      assertSameCurrency(wallet, old.currency, "wallet_id", "bill");
      next.walletId = wallet.id;
    }
  }

  // Amounts: amount makes the bill fixed; amount_min and amount_max make it variable. A variable bill may
  // change one bound alone; a fixed bill needs both to become variable.
  const range = params.amount_min !== undefined || params.amount_max !== undefined;
  if (params.amount !== undefined && range) {
    throw invalidParams("amount", "either amount, or amount_min with amount_max", "amount: give either a fixed amount or amount_min and amount_max, not both.");
  }
  if (params.amount !== undefined) {
    next.amountMinor = parseAmountParam(params.amount, old.currency, "amount");
    next.amountMinMinor = null;
    next.amountMaxMinor = null;
  } else if (range) {
    const isVariable = old.amountMinMinor !== null && old.amountMaxMinor !== null;
    if (!isVariable && (params.amount_min === undefined || params.amount_max === undefined)) {
      const missing = params.amount_min === undefined ? "amount_min" : "amount_max";
      throw invalidParams(
        missing,
        "both amount_min and amount_max to make a fixed bill variable",
        `${missing}: this bill has a fixed amount; give both amount_min and amount_max to make it variable.`,
      );
    }
    if (params.amount_min !== undefined) next.amountMinMinor = parseAmountParam(params.amount_min, old.currency, "amount_min");
    if (params.amount_max !== undefined) next.amountMaxMinor = parseAmountParam(params.amount_max, old.currency, "amount_max");
    next.amountMinor = null;
    checkAmountRange(next.amountMinMinor, next.amountMaxMinor);
  }

  if (params.schedule !== undefined) {
    const { schedule, rrule } = checkSchedule(params.schedule);
    next.schedule = schedule;
    next.rrule = rrule;
  }
  if (params.notice_days !== undefined) next.noticeDays = params.notice_days;
  if (params.autopay !== undefined) next.autopay = params.autopay;
  if (params.active !== undefined) next.active = params.active;

  await updateBillRow(ctx.db, next);
  const today = todayOf(ctx);
  return { before: billToApi(old, today), after: billToApi(next, today) };
}

/** Deletes the reminder for good (transactions untouched); answers the reminder that went. */
export async function deleteBill(ctx: DomainContext, p: { bill_reminder_id: string }): Promise<BillReminder> {
  const billId = p.bill_reminder_id;
  const userId = ctx.caller.userId;
  await lockRow(ctx.db, "bill_reminders", userId, billId);
  const old = await getBill(ctx.db, userId, billId);
  const shown = billToApi(old, todayOf(ctx));
  bindShownRecord(ctx, "bill reminder", shown.id, shown, shown.updated_at);
  await deleteBillRow(ctx.db, old.userId, old.id);
  return shown;
}
