import type { Handlers } from "../../../generated/handlers.js";
import { assertNameFree, assertSameCurrency, checkCurrency, cleanName, getWalletRef, nowIso, parseMoneyParam } from "../../domain/shared/common.js";
import { goalToApi, insertGoal, type GoalRecord } from "../../domain/goals/store.js";

/** A new goal starts active with nothing saved; money is recorded with add_goal_funds. */
export const create_goal: Handlers["create_goal"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const wallet = params.wallet_id !== undefined ? await getWalletRef(ctx.db, userId, params.wallet_id, "wallet_id") : null;
  const currency = checkCurrency(params.currency ?? wallet?.currency ?? ctx.caller.defaultCurrency);
  if (wallet) assertSameCurrency(wallet, currency, "wallet_id", "goal");
  const targetMinor = params.target_amount !== undefined ? parseMoneyParam(params.target_amount, currency, "target_amount") : null;
  await assertNameFree(ctx.db, "goals", userId, params.name);

  const at = nowIso(ctx);
  const rec: GoalRecord = {
    id: ctx.ids.next("gol"),
    userId,
    name: cleanName(params.name),
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
  const goal = goalToApi(rec, 0n);
  return {
    result: { goal, warnings: [] },
    change: { action: "create", resourceType: "goal", resourceId: rec.id, before: null, after: goal },
  };
};
