import type { Handlers } from "../../../generated/handlers.js";
import { listRulesForApi } from "../../domain/rules/save.js";

export const list_rules: Handlers["list_rules"] = async (params, ctx) => listRulesForApi(ctx, params);
