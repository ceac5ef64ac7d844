import type { Handlers } from "../../../generated/handlers.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { requireSomeChange } from "../require-change.js";
import { updateWallet } from "../../domain/wallets/write.js";

export const update_wallet: Handlers["update_wallet"] = async (params, ctx) => {
  const today = todayInTimeZone(ctx.caller.timezone, ctx.now());
  const { after, before } = await updateWallet(ctx.db, ctx.caller.userId, params.wallet_id, params, ctx.now(), today, () =>
    requireSomeChange("update_wallet", "wallet_id", params),
  );
  return {
    result: { wallet: after, warnings: [] },
    change: { action: "update", resourceType: "wallet", resourceId: after.id, before, after },
  };
};
