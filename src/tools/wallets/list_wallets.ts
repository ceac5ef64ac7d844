import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/shared/common.js";
import { listWalletRows, walletsOn } from "../../domain/wallets/store.js";

/**
 * Balances as of the user's today, like get_wallet_balance's default: a salary dated four days ahead is
 * not money the person has yet. What is dated later is stated apart (scheduled), never silently added.
 */
export const list_wallets: Handlers["list_wallets"] = async (params, ctx) => {
  const today = todayFor(ctx);
  const rows = await listWalletRows(ctx.db, ctx.caller.userId, { includeArchived: params.include_archived === true });
  return { as_of: today, wallets: await walletsOn(ctx.db, ctx.caller.userId, rows, today) };
};
