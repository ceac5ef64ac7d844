import type { Handlers } from "../../../generated/handlers.js";
import { listRules } from "../../domain/rules/store.js";
import { ruleToApi } from "../../domain/rules/save.js";

export const list_rules: Handlers["list_rules"] = async (_params, ctx) => ({
  rules: (await listRules(ctx.db, ctx.caller.userId)).map(ruleToApi),
});
