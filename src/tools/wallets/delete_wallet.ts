import type { Handlers } from "../../../generated/handlers.js";
import { deleteWallet } from "../../domain/wallets/write.js";

export const delete_wallet: Handlers["delete_wallet"] = async (params, ctx) => {
  const wallet = await deleteWallet(ctx, params);
  return {
    result: { wallet, warnings: [] },
    change: { action: "delete", resourceType: "wallet", resourceId: wallet.id, before: wallet, after: null },
  };
};
