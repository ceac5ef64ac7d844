import type { Handlers } from "../../../generated/handlers.js";
import { changesToApi, ruleToApi, saveRule } from "../../domain/rules/save.js";

export const save_rule: Handlers["save_rule"] = async (params, ctx) => {
  const saved = await saveRule(ctx.db, ctx.caller.userId, params, { now: ctx.now(), ids: ctx.ids, dryRun: ctx.dryRun, bindPreview: ctx.bindPreview });
  const rule = ruleToApi(saved.rule);
  const applied = saved.applied === null ? null : { count: saved.applied.count, changes: changesToApi(saved.applied.changes) };
  // One audit row for the rule and every past transaction it changed, each with its before/after snapshot.
  const changed = (saved.applied?.changes ?? []).map((c) => ({
    action: "update" as const,
    resourceType: "transaction" as const,
    resourceId: c.before.id,
    before: { transaction: c.before, counterpart: null },
    after: { transaction: c.after, counterpart: null },
  }));
  const after = saved.applied === null ? rule : { ...rule, applied_changes: changed };
  return {
    result: { rule, applied, warnings: [] },
    change:
      saved.before === null
        ? { action: "create", resourceType: "rule", resourceId: rule.id, before: null, after }
        : { action: "update", resourceType: "rule", resourceId: rule.id, before: ruleToApi(saved.before), after },
  };
};
