import type { Handlers, UpdateGoalResult } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { assertNameFree, assertSameCurrency, cleanName, getWalletRef, nowIso, parseMoneyParam } from "../../domain/shared/common.js";
import { achievedWarning } from "../../domain/goals/warnings.js";
import { goalToApi, getGoal, savedOf, updateGoalRow, type GoalRecord } from "../../domain/goals/store.js";

export const update_goal: Handlers["update_goal"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  requireSomeChange("update_goal", "goal_id", params);
  const old = await getGoal(ctx.db, userId, params.goal_id);
  const saved = await savedOf(ctx.db, userId, old.id);
  const at = nowIso(ctx);
  const next: GoalRecord = { ...old, updatedAt: at };
  const warnings: UpdateGoalResult["warnings"] = [];

  if (params.name !== undefined) {
    await assertNameFree(ctx.db, "goals", userId, params.name, old.id);
    next.name = cleanName(params.name);
  }
  if (params.target_amount !== undefined) {
    next.targetMinor = params.target_amount === null ? null : parseMoneyParam(params.target_amount, old.currency, "target_amount");
  }
  if (params.target_date !== undefined) next.targetDate = params.target_date;
  if (params.wallet_id !== undefined) {
    if (params.wallet_id === null) next.walletId = null;
    else {
      const wallet = await getWalletRef(ctx.db, userId, params.wallet_id, "wallet_id");
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
  const goal = goalToApi(next, saved);
  return {
    result: { goal, warnings },
    change: { action: "update", resourceType: "goal", resourceId: next.id, before: goalToApi(old, saved), after: goal },
  };
};
