import type { Handlers } from "../../../generated/handlers.js";
import { invalidParams } from "../../errors.js";
import { assertNameFree, assertSameCurrency, checkCurrency, cleanName, getWalletRef, nowIso, parseMoneyParam, todayFor } from "../../domain/shared/common.js";
import { billToApi, checkAmountRange, checkSchedule, insertBill, type BillRecord } from "../../domain/bills/store.js";

export const create_bill_reminder: Handlers["create_bill_reminder"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const wallet = params.wallet_id !== undefined ? await getWalletRef(ctx.db, userId, params.wallet_id, "wallet_id") : null;
  const currency = checkCurrency(params.currency ?? wallet?.currency ?? ctx.caller.defaultCurrency);
  if (wallet) assertSameCurrency(wallet, currency, "wallet_id", "bill");

  const variable = params.amount_min !== undefined || params.amount_max !== undefined;
  if (params.amount !== undefined && variable) {
    throw invalidParams("amount", "either amount, or amount_min with amount_max", "amount: give either a fixed amount or amount_min and amount_max for a variable bill, not both.");
  }
  if (params.amount === undefined && !variable) {
    throw invalidParams("amount", "a fixed amount such as \"900.00\", or amount_min with amount_max", "amount: a bill needs an amount, or amount_min and amount_max when it varies.");
  }
  if (variable && (params.amount_min === undefined || params.amount_max === undefined)) {
    const missing = params.amount_min === undefined ? "amount_min" : "amount_max";
    throw invalidParams(missing, "both amount_min and amount_max for a variable bill", `${missing}: a variable bill needs both amount_min and amount_max.`);
  }
  const amountMinor = params.amount !== undefined ? parseMoneyParam(params.amount, currency, "amount") : null;
  const amountMinMinor = params.amount_min !== undefined ? parseMoneyParam(params.amount_min, currency, "amount_min") : null;
  const amountMaxMinor = params.amount_max !== undefined ? parseMoneyParam(params.amount_max, currency, "amount_max") : null;
  checkAmountRange(amountMinMinor, amountMaxMinor);
  const { schedule, rrule } = checkSchedule(params.schedule);
  await assertNameFree(ctx.db, "bill_reminders", userId, params.name);

  const at = nowIso(ctx);
  const rec: BillRecord = {
    id: ctx.ids.next("bil"),
    userId,
    name: cleanName(params.name),
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
  const reminder = billToApi(rec, todayFor(ctx));
  return {
    result: { bill_reminder: reminder, warnings: [] },
    change: { action: "create", resourceType: "bill_reminder", resourceId: rec.id, before: null, after: reminder },
  };
};
