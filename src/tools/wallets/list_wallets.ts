import type { Handlers } from "../../../generated/handlers.js";
import { listWallets } from "../../domain/wallets/read.js";

/**
 * Balances as of the user's today, like get_wallet_balance's default: a salary dated four days ahead is
 * not money the person has yet. What is dated later is stated apart (scheduled), never silently added.
 */
export const list_wallets: Handlers["list_wallets"] = async (params, ctx) => listWallets(ctx, params);
