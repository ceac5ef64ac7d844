import type { Handlers } from "../../../generated/handlers.js";
import { deleteWallet, todayOf } from "../../domain/wallets/write.js";

export const delete_wallet: Handlers["delete_wallet"] = async (params, ctx) => {
  const wallet = await deleteWallet(ctx.db, ctx.caller.userId, params.wallet_id, todayOf(ctx));
  return {
    result: { wallet, warnings: [] },
    change: { action: "delete", resourceType: "wallet", resourceId: wallet.id, before: wallet, after: null },
  };
};
