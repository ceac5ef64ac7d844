import type { Handlers } from "../../../generated/handlers.js";
import { removeRule, ruleToApi } from "../../domain/rules/save.js";

export const delete_rule: Handlers["delete_rule"] = async (params, ctx) => {
  const rule = ruleToApi(await removeRule(ctx, params));
  return { result: { rule, warnings: [] }, change: { action: "delete", resourceType: "rule", resourceId: rule.id, before: rule, after: null } };
};
