/** get_wallet_balance: the balances of one wallet or of every active wallet on a day, and totals per currency. */
import type { GetWalletBalanceParams, GetWalletBalanceResult } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";
import { toMoney } from "../../money/amount.js";
import { balanceOf, existedOn, notYetOpen, totalsPerCurrency, walletBalance, walletRowsWithSums, walletsFromSums } from "./store.js";

/** Balances as of as_of (default: the caller's today); a wallet opened after that day is said not to exist yet. */
export async function walletBalances(ctx: DomainContext, params: GetWalletBalanceParams): Promise<GetWalletBalanceResult> {
  const userId = ctx.caller.userId;
  const asOf = params.as_of ?? todayOf(ctx);
  // The rows and their sums in one statement.
  const { rows, asOf: sums } = await walletRowsWithSums(
    ctx.db,
    userId,
    params.wallet_id ? { walletId: params.wallet_id, field: "wallet_id" } : { includeArchived: false },
    asOf,
    false,
  );
  const existing = rows.filter((row) => existedOn(row, sums, asOf));
  const balances = existing.map((row) => ({ row, minor: balanceOf(row, sums, asOf) }));
  return {
    as_of: asOf,
    wallets: rows.map((row) => {
      const b = balances.find((x) => x.row === row);
      return b ? walletBalance(row, b.minor) : notYetOpen(row);
    }),
    totals: totalsPerCurrency(balances.map(({ row, minor }) => ({ currency: row.currency, minor }))).map((t) => toMoney(t.minor, t.currency)),
  };
}

/** list_wallets: balances as of the caller's today, later-dated amounts stated apart (scheduled). */
export async function listWallets(ctx: DomainContext, params: { include_archived?: boolean }) {
  const today = todayOf(ctx);
  const { rows, asOf, all } = await walletRowsWithSums(ctx.db, ctx.caller.userId, { includeArchived: params.include_archived === true }, today, true);
  return { as_of: today, wallets: walletsFromSums(rows, asOf, all, today) };
}
