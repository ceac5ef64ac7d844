import type { Handlers } from "../../../generated/handlers.js";
import { balanceOf, ledgerSums, listWalletRows, walletFromRow } from "../../domain/wallets/store.js";

export const list_wallets: Handlers["list_wallets"] = async (params, ctx) => {
  const userId = ctx.caller.userId;
  const rows = await listWalletRows(ctx.db, userId, { includeArchived: params.include_archived === true });
  const sums = await ledgerSums(ctx.db, userId, { walletIds: rows.map((r) => r.id) });
  return { wallets: rows.map((row) => walletFromRow(row, balanceOf(row, sums))) };
};
