import type { Handlers } from "../../../generated/handlers.js";
import { assertNameFree, checkCurrency, cleanName, nowIso, parseMoneyParam, todayFor } from "../../domain/shared/common.js";
import { checkDateOrder, checkWallets, cleanLabels, defaultDates } from "../../domain/budgets/input.js";
import { computeBudgetStatus } from "../../domain/budgets/status.js";
import { budgetActiveOn, budgetToApi, insertBudget, type BudgetRecord } from "../../domain/budgets/store.js";
import { overLimitWarnings } from "../../domain/budgets/warnings.js";

export const create_budget: Handlers["create_budget"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const today = todayFor(ctx);
  const currency = checkCurrency(params.currency ?? ctx.caller.defaultCurrency);
  const amountMinor = parseMoneyParam(params.amount, currency, "amount");
  const interval = params.interval ?? 1;
  const { anchorDate, startDate } = defaultDates(
    { period: params.period, interval, anchorDate: params.anchor_date, startDate: params.start_date },
    today,
  );
  const endDate = params.end_date ?? null;
  checkDateOrder(startDate, endDate, "end_date");
  await assertNameFree(ctx.db, "budgets", userId, params.name);
  const walletIds = await checkWallets(ctx.db, userId, params.wallet_ids, currency);

  const at = nowIso(ctx);
  const rec: BudgetRecord = {
    id: ctx.ids.next("bud"),
    userId,
    name: cleanName(params.name),
    amountMinor,
    currency,
    period: params.period,
    interval,
    anchorDate,
    categories: cleanLabels(params.categories),
    tags: cleanLabels(params.tags),
    walletIds,
    startDate,
    endDate,
    rollover: params.rollover ?? "none",
    alertThreshold: params.alert_threshold ?? 80,
    notes: params.notes ?? null,
    createdAt: at,
    updatedAt: at,
  };
  await insertBudget(ctx.db, rec);
  const status = budgetActiveOn(rec, today) ? await computeBudgetStatus(ctx.db, rec, today) : undefined;
  return {
    result: { budget: budgetToApi(rec, status), warnings: overLimitWarnings(status) },
    change: { action: "create", resourceType: "budget", resourceId: rec.id, before: null, after: budgetToApi(rec) },
  };
};
