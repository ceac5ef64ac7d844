import type { Handlers } from "../../../generated/handlers.js";
import { requireSomeChange } from "../require-change.js";
import { updateWallet } from "../../domain/wallets/write.js";
import { getWalletRow } from "../../domain/wallets/store.js";
import { todayFor } from "../../domain/shared/common.js";

export const update_wallet: Handlers["update_wallet"] = async (params, ctx) => {
  // An unknown wallet is not_found before "nothing to change", as the other update tools answer.
  await getWalletRow(ctx.db, ctx.caller.userId, params.wallet_id, "wallet_id");
  requireSomeChange("update_wallet", "wallet_id", params);
  const { before, after } = await updateWallet(ctx.db, ctx.caller.userId, params.wallet_id, params, ctx.now(), todayFor(ctx));
  return {
    result: { wallet: after, warnings: [] },
    change: { action: "update", resourceType: "wallet", resourceId: after.id, before, after },
  };
};
