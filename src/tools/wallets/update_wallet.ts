import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { parseAmountParam } from "../../domain/transactions/amounts.js";
import { assertNameFree, isUniqueViolation, normalizeWalletName } from "../../domain/wallets/names.js";
import { findWallet, getWalletRow } from "../../domain/wallets/store.js";
import { AppError } from "../../errors.js";
import { assertRunningTotals } from "../../domain/wallets/ceiling.js";

export const update_wallet: Handlers["update_wallet"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const row = await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id");
  requireSomeChange("update_wallet", "wallet_id", params);
  const before = (await findWallet(ctx.db, userId, row.id))!;

  const patch: Record<string, unknown> = {};
  if (params.name !== undefined) {
    const { name, key } = normalizeWalletName(params.name);
    await assertNameFree(ctx.db, userId, key, row.id);
    patch.name = name;
    patch.name_normalized = key;
  }
  if (params.type !== undefined) patch.type = params.type;
  if (params.opening_balance !== undefined) {
    patch.opening_balance_minor = parseAmountParam(params.opening_balance, row.currency, "opening_balance", { signed: true, allowZero: true });
  }
  if (params.opening_date !== undefined) patch.opening_date = params.opening_date;
  if (params.archived !== undefined) patch.archived = params.archived;
  if (params.notes !== undefined) patch.notes = params.notes;
  patch.updated_at = ctx.now().toISOString();

  try {
    await ctx.db("wallets").where({ user_id: userId, id: row.id }).update(patch);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", "name: another of the user's wallets already has this name. Choose another name.", { field: "name" });
    throw err;
  }
  if (patch.opening_balance_minor !== undefined) {
    await assertRunningTotals(ctx.db, userId, [{ ...row, opening_balance_minor: patch.opening_balance_minor as bigint }], "opening_balance");
  }
  const wallet = (await findWallet(ctx.db, userId, row.id))!;
  return {
    result: { wallet, warnings: [] },
    change: { action: "update", resourceType: "wallet", resourceId: row.id, before, after: wallet },
  };
};
