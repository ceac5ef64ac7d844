/** get_wallet_balance: the balances of one wallet or of every active wallet on a day, and totals per currency. */
import type { GetWalletBalanceParams, GetWalletBalanceResult } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { toMoney } from "../../money/amount.js";
import { balanceOf, getWalletRow, ledgerSums, listWalletRows, totalsPerCurrency, walletBalance } from "./store.js";

/** Balances as of as_of (default: the caller's today). */
export async function walletBalances(ctx: DomainContext, params: GetWalletBalanceParams): Promise<GetWalletBalanceResult> {
  const userId = ctx.caller.userId;
  const asOf = params.as_of ?? todayInTimeZone(ctx.caller.timezone, ctx.now());
  const rows = params.wallet_id
    ? [await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id")]
    : await listWalletRows(ctx.db, userId, { includeArchived: false });
  const sums = await ledgerSums(ctx.db, userId, { walletIds: rows.map((r) => r.id), asOf });
  const balances = rows.map((row) => ({ row, minor: balanceOf(row, sums, asOf) }));
  return {
    as_of: asOf,
    wallets: balances.map(({ row, minor }) => walletBalance(row, minor)),
    totals: totalsPerCurrency(balances.map(({ row, minor }) => ({ currency: row.currency, minor }))).map((t) => toMoney(t.minor, t.currency)),
  };
}
