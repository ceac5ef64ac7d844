import type { Handlers } from "../../../generated/handlers.js";
import { walletBalances } from "../../domain/wallets/read.js";

export const get_wallet_balance: Handlers["get_wallet_balance"] = async (params, ctx) => walletBalances(ctx, params);
