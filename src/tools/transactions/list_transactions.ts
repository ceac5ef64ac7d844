import type { Handlers } from "../../../generated/handlers.js";
import { listTransactions } from "../../domain/transactions/list.js";

export const list_transactions: Handlers["list_transactions"] = async (params, ctx) => listTransactions(ctx, params);
