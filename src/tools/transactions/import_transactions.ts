import type { Handlers } from "../../../generated/handlers.js";
import { importTransactions } from "../../domain/imports/tool.js";

export const import_transactions: Handlers["import_transactions"] = async (params, ctx) => importTransactions(ctx, params);
