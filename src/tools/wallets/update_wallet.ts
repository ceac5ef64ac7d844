import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { updateWallet } from "../../domain/wallets/write.js";

export const update_wallet: Handlers["update_wallet"] = async (params, ctx) => {
  const { after, before } = await updateWallet(ctx, params, () => requireSomeChange("update_wallet", "wallet_id", params));
  return {
    result: { wallet: after, warnings: [] },
    change: { action: "update", resourceType: "wallet", resourceId: after.id, before, after },
  };
};
