import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { assertNameFree, cleanName, nowIso, parseMoneyParam, todayFor } from "../../domain/shared/common.js";
import { calendarPeriodStart } from "../../domain/budgets/periods.js";
import { checkDateOrder, checkWallets, cleanLabels } from "../../domain/budgets/input.js";
import { computeBudgetStatus } from "../../domain/budgets/status.js";
import { budgetActiveOn, budgetToApi, getBudget, updateBudgetRow, type BudgetRecord } from "../../domain/budgets/store.js";
import { overLimitWarnings } from "../../domain/budgets/warnings.js";

export const update_budget: Handlers["update_budget"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  requireSomeChange("update_budget", "budget_id", params);
  const old = await getBudget(ctx.db, userId, params.budget_id);
  const next: BudgetRecord = { ...old, updatedAt: nowIso(ctx) };

  if (params.name !== undefined) {
    await assertNameFree(ctx.db, "budgets", userId, params.name, old.id);
    next.name = cleanName(params.name);
  }
  if (params.amount !== undefined) next.amountMinor = parseMoneyParam(params.amount, old.currency, "amount");
  if (params.period !== undefined) next.period = params.period;
  if (params.interval !== undefined) next.interval = params.interval;
  if (params.categories !== undefined) next.categories = cleanLabels(params.categories);
  if (params.tags !== undefined) next.tags = cleanLabels(params.tags);
  if (params.wallet_ids !== undefined) next.walletIds = await checkWallets(ctx.db, userId, params.wallet_ids, old.currency);
  if (params.start_date !== undefined) next.startDate = params.start_date;
  if (params.end_date !== undefined) next.endDate = params.end_date;
  // The anchor: the one given; else, when the unit changes, the contract's default for the new unit (the
  // first day of its calendar period containing start_date); else the old anchor (an interval change
  // keeps it).
  if (params.anchor_date !== undefined) next.anchorDate = params.anchor_date;
  else if (next.period !== old.period) next.anchorDate = calendarPeriodStart(next.period, next.startDate);
  if (params.rollover !== undefined) next.rollover = params.rollover;
  if (params.alert_threshold !== undefined) next.alertThreshold = params.alert_threshold;
  if (params.notes !== undefined) next.notes = params.notes;
  checkDateOrder(next.startDate, next.endDate, params.end_date !== undefined && params.end_date !== null ? "end_date" : "start_date");

  await updateBudgetRow(ctx.db, next);
  const today = todayFor(ctx);
  const status = budgetActiveOn(next, today) ? await computeBudgetStatus(ctx.db, next, today) : undefined;
  return {
    result: { budget: budgetToApi(next, status), warnings: overLimitWarnings(status) },
    change: { action: "update", resourceType: "budget", resourceId: next.id, before: budgetToApi(old), after: budgetToApi(next) },
  };
};
