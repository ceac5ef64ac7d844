/**
 * The goal writes: create, update, add funds and delete, with their rules (a name unique per user, the
 * target in the goal's currency, a wallet of that currency, a saved amount never below zero, "achieved"
 * when the saved amount reaches the target). Updates, fundings and deletes lock the goal's row first
 * (lockRow), so two of them on one goal never both read the same saved amount.
 */
import type { AddGoalFundsParams, CreateGoalParams, Goal, GoalContribution, Transaction, UpdateGoalParams, Warning } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { invalidParams } from "../../errors.js";
import { formatMinor } from "../../money/amount.js";
import { parseAmountParam, requireKnownCurrency } from "../shared/amounts.js";
import { assertNameFree, assertSameCurrency, bindShownRecord, lockRow } from "../shared/common.js";
import { cleanText } from "../shared/text.js";
import { getWalletRow } from "../wallets/store.js";
import { checkNamedCurrency } from "../wallets/currency.js";
import { recordGoalMoney } from "./funding.js";
import {
  contributionToApi,
  deleteGoalRows,
  getGoal,
  goalToApi,
  insertContribution,
  insertGoal,
  listContributions,
  savedOf,
  updateGoalRow,
  type ContributionRecord,
  type GoalRecord,
} from "./store.js";
import { achievedWarning, contributionsRemovedWarning } from "./warnings.js";

/** The user's goal, locked for the rest of the write; not_found when it is not (or no longer) there. */
async function lockedGoal(ctx: DomainContext, goalId: string): Promise<GoalRecord> {
  await lockRow(ctx.db, "goals", ctx.caller.userId, goalId);
  return getGoal(ctx.db, ctx.caller.userId, goalId);
}

/** A new goal starts active with nothing saved; money is recorded with add_goal_funds. */
export async function createGoal(ctx: DomainContext, params: CreateGoalParams): Promise<Goal> {
  const userId = ctx.caller.userId;
  const wallet = params.wallet_id !== undefined ? await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id") : null;
  const currency = requireKnownCurrency(params.currency ?? wallet?.currency ?? ctx.caller.defaultCurrency);
  if (wallet) assertSameCurrency(wallet, currency, "wallet_id", "goal");
  const targetMinor = params.target_amount !== undefined ? parseAmountParam(params.target_amount, currency, "target_amount") : null;
  await assertNameFree(ctx.db, "goals", userId, params.name);

  const at = ctx.now().toISOString();
  const rec: GoalRecord = {
    id: ctx.ids.next("gol"),
    userId,
    name: cleanText(params.name),
    targetMinor,
    currency,
    targetDate: params.target_date ?? null,
    walletId: wallet?.id ?? null,
    status: "active",
    achievedAt: null,
    notes: params.notes ?? null,
    createdAt: at,
    updatedAt: at,
  };
  await insertGoal(ctx.db, rec);
  return goalToApi(rec, 0n);
}

/** Only the fields given change; the caller has checked that something is given. */
export async function updateGoal(ctx: DomainContext, params: UpdateGoalParams): Promise<{ before: Goal; after: Goal; warnings: Warning[] }> {
  const userId = ctx.caller.userId;
  const old = await lockedGoal(ctx, params.goal_id);
  await checkNamedCurrency(ctx.db, userId, params.currency, old.currency, `goal ${JSON.stringify(old.name)}`);
  const saved = await savedOf(ctx.db, userId, old.id);
  const at = ctx.now().toISOString();
  const next: GoalRecord = { ...old, updatedAt: at };
  const warnings: Warning[] = [];

  if (params.name !== undefined) {
    await assertNameFree(ctx.db, "goals", userId, params.name, old.id);
    next.name = cleanText(params.name);
  }
  if (params.target_amount !== undefined) {
    next.targetMinor = params.target_amount === null ? null : parseAmountParam(params.target_amount, old.currency, "target_amount");
  }
  if (params.target_date !== undefined) next.targetDate = params.target_date;
  if (params.wallet_id !== undefined) {
    if (params.wallet_id === null) next.walletId = null;
    else {
      const wallet = await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id");
      assertSameCurrency(wallet, old.currency, "wallet_id", "goal");
      next.walletId = wallet.id;
    }
  }
  if (params.notes !== undefined) next.notes = params.notes;
  if (params.status !== undefined) {
    next.status = params.status;
  } else if (
    // A lower target that the saved amount already reaches achieves the goal, unless the call sets the status.
    params.target_amount !== undefined &&
    next.targetMinor !== null &&
    saved >= next.targetMinor &&
    (old.targetMinor === null || saved < old.targetMinor) &&
    (old.status === "active" || old.status === "paused")
  ) {
    next.status = "achieved";
    next.achievedAt = at;
    warnings.push(achievedWarning(next, saved));
  }

  await updateGoalRow(ctx.db, next);
  return { before: goalToApi(old, saved), after: goalToApi(next, saved), warnings };
}

export interface GoalFunding {
  before: Goal;
  goal: Goal;
  contribution: GoalContribution;
  transaction: Transaction | null;
  warnings: Warning[];
}

/**
 * Records one contribution (positive adds, negative withdraws; the saved amount never goes below zero).
 * Money that moves between wallets (from_wallet_id on a goal kept in another wallet) is recorded first
 * as a transfer, in the same database transaction as the contribution, so both exist or neither does
 * (funding.ts).
 */
export async function addGoalFunds(ctx: DomainContext, params: AddGoalFundsParams): Promise<GoalFunding> {
  const userId = ctx.caller.userId;
  const goal = await lockedGoal(ctx, params.goal_id);
  await checkNamedCurrency(ctx.db, userId, params.currency, goal.currency, `goal ${JSON.stringify(goal.name)}`);
  const amount = parseAmountParam(params.amount, goal.currency, "amount", { signed: true });
  const saved = await savedOf(ctx.db, userId, goal.id);
  const after = saved + amount;
  if (after < 0n) {
    const can = formatMinor(saved, goal.currency);
    throw invalidParams(
      "amount",
      `a withdrawal of at most ${can} ${goal.currency} (the saved amount)`,
      `amount: goal "${goal.name}" has ${can} ${goal.currency} saved, so at most "-${can}" can be withdrawn; the saved amount never goes below zero.`,
    );
  }
  const date = params.date ?? todayOf(ctx);
  const at = ctx.now().toISOString();
  const warnings: Warning[] = [];

  const moved = await recordGoalMoney(ctx.db, userId, goal, {
    amount,
    fromWalletId: params.from_wallet_id,
    date,
    note: params.note ?? null,
    now: ctx.now(),
    ids: ctx.ids,
  });
  const transaction = moved?.transaction ?? null;
  if (moved) warnings.push(...moved.warnings);

  const contribution: ContributionRecord = {
    id: ctx.ids.next("gct"),
    userId,
    goalId: goal.id,
    amountMinor: amount,
    date,
    note: params.note ?? null,
    fromWalletId: params.from_wallet_id ?? null,
    transactionId: transaction ? transaction.id : null,
    createdAt: at,
  };
  await insertContribution(ctx.db, contribution);

  const next: GoalRecord = { ...goal, updatedAt: at };
  // Achieved when this contribution takes the saved amount from below the target to at least the target.
  if (goal.targetMinor !== null && saved < goal.targetMinor && after >= goal.targetMinor && (goal.status === "active" || goal.status === "paused")) {
    next.status = "achieved";
    next.achievedAt = at;
    warnings.push(achievedWarning(next, after));
  }
  await updateGoalRow(ctx.db, next);
  return {
    before: goalToApi(goal, saved),
    goal: goalToApi(next, after),
    contribution: contributionToApi(contribution, goal.currency),
    transaction,
    warnings,
  };
}

/**
 * Deletes the goal and its contributions; wallet transactions recorded by add_goal_funds stay. The
 * snapshot carries every contribution, so the history stays in the audit log.
 */
export async function deleteGoal(ctx: DomainContext, p: { goal_id: string }): Promise<{ goal: Goal; contributions: GoalContribution[]; warnings: Warning[] }> {
  const goalId = p.goal_id;
  const userId = ctx.caller.userId;
  const old = await lockedGoal(ctx, goalId);
  const contributions = await listContributions(ctx.db, userId, old.id);
  const saved = contributions.reduce((s, c) => s + c.amountMinor, 0n);
  const goal = goalToApi(old, saved);
  const shown = contributions.map((c) => contributionToApi(c, old.currency));
  bindShownRecord(ctx, "goal", goal.id, { goal, contributions: shown }, goal.updated_at);
  await deleteGoalRows(ctx.db, userId, old.id);
  return {
    goal,
    contributions: shown,
    warnings: contributions.length > 0 ? [contributionsRemovedWarning(contributions.length, saved, old.currency, ctx.dryRun === true)] : [],
  };
}
