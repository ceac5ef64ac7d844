/**
 * The budget writes: create, update and delete, with their rules (a name unique per user, the limit in
 * the budget's currency, wallets of that currency, start before end, the anchor's default). Each answers
 * the budget as the tools answer it, before and after, and the status and warnings of a budget active
 * today. Updates and deletes lock the row first (lockRow).
 */
import type { Budget, CreateBudgetParams, UpdateBudgetParams, Warning } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { parseAmountParam, requireKnownCurrency } from "../shared/amounts.js";
import { assertNameFree, bindShownRecord, lockRow } from "../shared/common.js";
import { cleanText, distinctLabels } from "../shared/text.js";
import { checkDateOrder, checkWallets, defaultDates } from "./input.js";
import { calendarPeriodStart } from "./periods.js";
import { computeBudgetStatus } from "./status.js";
import { budgetActiveOn, budgetToApi, deleteBudgetRow, getBudget, insertBudget, updateBudgetRow, type BudgetRecord } from "./store.js";
import { overLimitWarnings } from "./warnings.js";
import { checkNamedCurrency } from "../wallets/currency.js";

export interface BudgetWrite {
  /** The budget as the tool answers it: with its status when it is active today. */
  budget: Budget;
  warnings: Warning[];
  /** The definitions before and after, as the audit log keeps them (no status). */
  before: Budget | null;
  after: Budget | null;
}

/** The answer of a write that leaves `next` in place: its status today when active, and its warnings. */
async function answer(ctx: DomainContext, old: BudgetRecord | null, next: BudgetRecord): Promise<BudgetWrite> {
  const today = todayOf(ctx);
  const status = budgetActiveOn(next, today) ? await computeBudgetStatus(ctx.db, next, today) : undefined;
  return { budget: budgetToApi(next, status), warnings: overLimitWarnings(status), before: old && budgetToApi(old), after: budgetToApi(next) };
}

export async function createBudget(ctx: DomainContext, params: CreateBudgetParams): Promise<BudgetWrite> {
  const userId = ctx.caller.userId;
  const today = todayOf(ctx);
  const currency = requireKnownCurrency(params.currency ?? ctx.caller.defaultCurrency);
  const amountMinor = parseAmountParam(params.amount, currency, "amount");
  const interval = params.interval ?? 1;
  const { anchorDate, startDate } = defaultDates({ period: params.period, interval, anchorDate: params.anchor_date, startDate: params.start_date }, today);
  const endDate = params.end_date ?? null;
  checkDateOrder(startDate, endDate, "end_date");
  await assertNameFree(ctx.db, "budgets", userId, params.name);
  const walletIds = await checkWallets(ctx.db, userId, params.wallet_ids, currency);

  const at = ctx.now().toISOString();
  const rec: BudgetRecord = {
    id: ctx.ids.next("bud"),
    userId,
    name: cleanText(params.name),
    amountMinor,
    currency,
    period: params.period,
    interval,
    anchorDate,
    categories: distinctLabels(params.categories),
    tags: distinctLabels(params.tags),
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
  return answer(ctx, null, rec);
}

/** Only the fields given change; the caller has checked that something is given. */
export async function updateBudget(ctx: DomainContext, params: UpdateBudgetParams): Promise<BudgetWrite> {
  const userId = ctx.caller.userId;
  await lockRow(ctx.db, "budgets", userId, params.budget_id);
  const old = await getBudget(ctx.db, userId, params.budget_id);
  await checkNamedCurrency(ctx.db, userId, params.currency, old.currency, `budget ${JSON.stringify(old.name)}`);
  const next: BudgetRecord = { ...old, updatedAt: ctx.now().toISOString() };

  if (params.name !== undefined) {
    await assertNameFree(ctx.db, "budgets", userId, params.name, old.id);
    next.name = cleanText(params.name);
  }
  if (params.amount !== undefined) next.amountMinor = parseAmountParam(params.amount, old.currency, "amount");
  if (params.period !== undefined) next.period = params.period;
  if (params.interval !== undefined) next.interval = params.interval;
  if (params.categories !== undefined) next.categories = distinctLabels(params.categories);
  if (params.tags !== undefined) next.tags = distinctLabels(params.tags);
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
  return answer(ctx, old, next);
}

/** Deletes the definition only; transactions are never touched. Answers the budget that went. */
export async function deleteBudget(ctx: DomainContext, p: { budget_id: string }): Promise<Budget> {
  const budgetId = p.budget_id;
  const userId = ctx.caller.userId;
  await lockRow(ctx.db, "budgets", userId, budgetId);
  const old = await getBudget(ctx.db, userId, budgetId);
  const shown = budgetToApi(old);
  bindShownRecord(ctx, "budget", shown.id, shown, shown.updated_at);
  await deleteBudgetRow(ctx.db, old.userId, old.id);
  return shown;
}
