import type { Handlers } from "../../../generated/handlers.js";
import { listBudgets } from "../../domain/budgets/read.js";

export const list_budgets: Handlers["list_budgets"] = async (params, ctx) => listBudgets(ctx, params);
