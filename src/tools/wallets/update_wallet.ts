import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { todayOf, updateWallet } from "../../domain/wallets/write.js";

export const update_wallet: Handlers["update_wallet"] = async (params, ctx) => {
  const today = todayOf(ctx);
  const { after, before } = await updateWallet(ctx.db, ctx.caller.userId, params.wallet_id, params, ctx.now(), today, () =>
    requireSomeChange("update_wallet", "wallet_id", params),
  );
  return {
    result: { wallet: after, warnings: [] },
    change: { action: "update", resourceType: "wallet", resourceId: after.id, before, after },
  };
};
