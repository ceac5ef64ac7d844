import type { Handlers } from "../../../generated/handlers.js";
import { parseAmountParam, requireKnownCurrency } from "../../domain/transactions/amounts.js";
import { assertNameFree, isUniqueViolation, normalizeWalletName } from "../../domain/wallets/names.js";
import { findWalletRow, walletFromRow } from "../../domain/wallets/store.js";
import { AppError } from "../../errors.js";

export const create_wallet: Handlers["create_wallet"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  requireKnownCurrency(params.currency, "currency");
  const opening = params.opening_balance === undefined ? 0n : parseAmountParam(params.opening_balance, params.currency, "opening_balance", { signed: true, allowZero: true });
  const { name, key } = normalizeWalletName(params.name);
  await assertNameFree(ctx.db, userId, key);

  const id = ctx.ids.next("wal");
  const at = ctx.now().toISOString();
  try {
    await ctx.db("wallets").insert({
      id,
      user_id: userId,
      name,
      name_normalized: key,
      type: params.type,
      currency: params.currency,
      opening_balance_minor: opening,
      opening_date: params.opening_date ?? null,
      archived: false,
      notes: params.notes ?? null,
      created_at: at,
      updated_at: at,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", `name: the user already has a wallet named ${JSON.stringify(name)}. Choose another name.`, { field: "name" });
    throw err;
  }
  const row = (await findWalletRow(ctx.db, userId, id))!;
  const wallet = walletFromRow(row, row.opening_balance_minor);
  return {
    result: { wallet, warnings: [] },
    change: { action: "create", resourceType: "wallet", resourceId: id, before: null, after: wallet },
  };
};
