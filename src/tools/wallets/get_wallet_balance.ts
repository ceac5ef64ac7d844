import type { Handlers } from "../../../generated/handlers.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { balanceOf, existedOn, ledgerSums, listWalletRows, getWalletRow, notYetOpen, totalsPerCurrency, walletBalance } from "../../domain/wallets/store.js";
import { toMoney } from "../../money/amount.js";

export const get_wallet_balance: Handlers["get_wallet_balance"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const asOf = params.as_of ?? todayInTimeZone(ctx.caller.timezone, ctx.now());
  const rows = params.wallet_id
    ? [await getWalletRow(ctx.db, userId, params.wallet_id, "wallet_id")]
    : await listWalletRows(ctx.db, userId, { includeArchived: false });
  const sums = await ledgerSums(ctx.db, userId, { walletIds: rows.map((r) => r.id), asOf });
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
};
