import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/shared/common.js";
import { balanceOf, ledgerSums, listWalletRows, walletFromRow } from "../../domain/wallets/store.js";
import { toMoney } from "../../money/amount.js";

/**
 * Balances as of the user's today, like get_wallet_balance's default: a salary dated four days ahead is
 * not money the person has yet. What is dated later is stated apart (scheduled), never silently added.
 */
export const list_wallets: Handlers["list_wallets"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const today = todayFor(ctx);
  const rows = await listWalletRows(ctx.db, userId, { includeArchived: params.include_archived === true });
  const walletIds = rows.map((r) => r.id);
  const [upToToday, all] = await Promise.all([ledgerSums(ctx.db, userId, { walletIds, asOf: today }), ledgerSums(ctx.db, userId, { walletIds })]);
  return {
    as_of: today,
    wallets: rows.map((row) => {
      const wallet = walletFromRow(row, balanceOf(row, upToToday, today));
      const scheduled = (all.get(row.id) ?? 0n) - (upToToday.get(row.id) ?? 0n);
      return scheduled === 0n ? wallet : { ...wallet, scheduled: toMoney(scheduled, row.currency) };
    }),
  };
};
