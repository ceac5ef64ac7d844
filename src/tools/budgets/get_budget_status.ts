import type { Handlers } from "../../../generated/handlers.js";
import { getBudgetStatus } from "../../domain/budgets/read.js";

export const get_budget_status: Handlers["get_budget_status"] = async (params, ctx) => getBudgetStatus(ctx, params);
