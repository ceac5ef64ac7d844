import type { Handlers } from "../../../generated/handlers.js";
import type { Warning } from "../../../generated/types.js";
import { invalidParams } from "../../errors.js";
import { formatMinor } from "../../money/amount.js";
import { nowIso, parseMoneyParam, todayFor } from "../../domain/shared/common.js";
import { achievedWarning } from "../../domain/goals/warnings.js";
import { contributionToApi, goalToApi, insertContribution, getGoal, savedOf, updateGoalRow, type ContributionRecord, type GoalRecord } from "../../domain/goals/store.js";
import { recordGoalMoney } from "../../domain/goals/funding.js";

/**
 * Records one contribution (positive adds, negative withdraws; the saved amount never goes below zero).
 * Money that moves between wallets (from_wallet_id on a goal kept in another wallet) is recorded first
 * as a transfer, in the same database transaction as the contribution (the write pipeline's), so both
 * exist or neither does (src/domain/goals/funding.ts).
 */
export const add_goal_funds: Handlers["add_goal_funds"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const goal = await getGoal(ctx.db, userId, params.goal_id);
  const amount = parseMoneyParam(params.amount, goal.currency, "amount", { signed: true });
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
  const date = params.date ?? todayFor(ctx);
  const at = nowIso(ctx);
  const warnings: Warning[] = [];

  const moved = await recordGoalMoney(ctx.db, userId, goal, { amount, fromWalletId: params.from_wallet_id, date, note: params.note ?? null, now: ctx.now(), ids: ctx.ids });
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

  const goalAfter = goalToApi(next, after);
  const contributionOut = contributionToApi(contribution, goal.currency);
  return {
    result: { goal: goalAfter, contribution: contributionOut, transaction, warnings },
    change: {
      action: "add_funds",
      resourceType: "goal",
      resourceId: goal.id,
      before: goalToApi(goal, saved),
      after: { ...goalAfter, contribution: contributionOut },
    },
  };
};
