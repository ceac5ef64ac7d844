import type { Handlers } from "../../../generated/handlers.js";
import { createWallet } from "../../domain/wallets/write.js";

export const create_wallet: Handlers["create_wallet"] = async (params, ctx) => {
  const wallet = await createWallet(ctx, params);
  return {
    result: { wallet, warnings: [] },
    change: { action: "create", resourceType: "wallet", resourceId: wallet.id, before: null, after: wallet },
  };
};
