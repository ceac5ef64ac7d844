import type { Handlers } from "../../../generated/handlers.js";
import { transactionSummary } from "../../domain/transactions/summary.js";

export const get_transaction_summary: Handlers["get_transaction_summary"] = async (params, ctx) => transactionSummary(ctx, params);
