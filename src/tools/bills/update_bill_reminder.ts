import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { invalidParams } from "../../errors.js";
import { assertNameFree, assertSameCurrency, cleanName, getWalletRef, nowIso, parseMoneyParam, todayFor } from "../../domain/shared/common.js";
import { billToApi, checkAmountRange, checkSchedule, getBill, updateBillRow, type BillRecord } from "../../domain/bills/store.js";

export const update_bill_reminder: Handlers["update_bill_reminder"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  requireSomeChange("update_bill_reminder", "bill_reminder_id", params);
  const old = await getBill(ctx.db, userId, params.bill_reminder_id);
  const next: BillRecord = { ...old, updatedAt: nowIso(ctx) };

  if (params.name !== undefined) {
    await assertNameFree(ctx.db, "bill_reminders", userId, params.name, old.id);
    next.name = cleanName(params.name);
  }
  if (params.payee !== undefined) next.payee = params.payee === null ? null : params.payee.trim();
  if (params.category !== undefined) next.category = params.category === null ? null : params.category.trim();
  if (params.notes !== undefined) next.notes = params.notes;
  if (params.wallet_id !== undefined) {
    if (params.wallet_id === null) next.walletId = null;
    else {
      const wallet = await getWalletRef(ctx.db, userId, params.wallet_id, "wallet_id");
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
    next.amountMinor = parseMoneyParam(params.amount, old.currency, "amount");
    next.amountMinMinor = null;
    next.amountMaxMinor = null;
  } else if (range) {
    const isVariable = old.amountMinMinor !== null && old.amountMaxMinor !== null;
    if (!isVariable && (params.amount_min === undefined || params.amount_max === undefined)) {
      const missing = params.amount_min === undefined ? "amount_min" : "amount_max";
      throw invalidParams(missing, "both amount_min and amount_max to make a fixed bill variable", `${missing}: this bill has a fixed amount; give both amount_min and amount_max to make it variable.`);
    }
    if (params.amount_min !== undefined) next.amountMinMinor = parseMoneyParam(params.amount_min, old.currency, "amount_min");
    if (params.amount_max !== undefined) next.amountMaxMinor = parseMoneyParam(params.amount_max, old.currency, "amount_max");
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
  const today = todayFor(ctx);
  const reminder = billToApi(next, today);
  return {
    result: { bill_reminder: reminder, warnings: [] },
    change: { action: "update", resourceType: "bill_reminder", resourceId: next.id, before: billToApi(old, today), after: reminder },
  };
};
