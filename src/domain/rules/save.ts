/**
 * save_rule and delete_rule: a rule created or changed (given fields replace, the rest stay), kept in
 * the person's order, and optionally applied to the past. Applying to the past is guarded: the commit
 * must state expected_count, the number of transactions the dry run showed would change; another number
 * is a conflict that names the real count, so nothing the person did not see is changed
 * (docs/decisions.md#rules-apply-to-the-past-with-expected-count).
 */
import type { DomainContext } from "../../context.js";
import type { Rule, RuleChange as ApiRuleChange, SaveRuleParams } from "../../../generated/types.js";
import { AppError, invalidParams } from "../../errors.js";
import { getWalletRow } from "../wallets/store.js";
import { cleanText, normalizeTags } from "../shared/text.js";
import { applyRuleChanges, changesOfRule, type RuleChange } from "./apply.js";
import type { RuleRow } from "./match.js";
import { deleteRule, getRule, insertRule, listRules, updateRule, type RuleFields } from "./store.js";
import { boundInMinorUnits } from "../shared/amounts.js";
import { bindShownRecord, lockRow } from "../shared/common.js";
import { limits } from "../../../generated/limits.js";

/** How many changed transactions the answer lists (the count is always whole). */
export const SHOWN_CHANGES = 20;

export const ruleToApi = (r: RuleRow): Rule => ({ ...r, add_tags: normalizeTags(r.add_tags) });

export interface SavedRule {
  before: RuleRow | null;
  rule: RuleRow;
  applied: { count: number; changes: RuleChange[] } | null;
}

export async function saveRule(ctx: DomainContext, p: SaveRuleParams): Promise<SavedRule> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  const clock = { now: ctx.now(), ids: ctx.ids, dryRun: ctx.dryRun ?? false };
  const old = p.rule_id === undefined ? null : await getRule(db, userId, p.rule_id);
  if (old === null && p.value === undefined)
    throw invalidParams(
      "value",
      "the text the rule looks for",
      'value: a new rule needs value, the text to look for in the payee (or description), e.g. "REWE".',
    );
  if (p.wallet_id !== undefined) await getWalletRow(db, userId, p.wallet_id, "wallet_id");
  const fields: RuleFields = {
    field: p.field ?? old?.field ?? "payee",
    operator: p.operator ?? old?.operator ?? "contains",
    value: cleanText(p.value) ?? old!.value,
    min_amount: p.min_amount ?? old?.min_amount ?? null,
    max_amount: p.max_amount ?? old?.max_amount ?? null,
    direction: p.direction ?? old?.direction ?? null,
    wallet_id: p.wallet_id ?? old?.wallet_id ?? null,
    set_category: cleanText(p.set_category) ?? old?.set_category ?? null,
    add_tags: p.add_tags !== undefined ? normalizeTags(p.add_tags, "add_tags") : (old?.add_tags ?? []),
    rename_payee: cleanText(p.rename_payee) ?? old?.rename_payee ?? null,
  };
  if (fields.set_category === null && fields.add_tags.length === 0 && fields.rename_payee === null)
    throw invalidParams("set_category", "at least one action", "set_category: a rule needs an action: set_category, add_tags or rename_payee.");
  if (
    fields.min_amount !== null &&
    fields.max_amount !== null &&
    boundInMinorUnits(fields.min_amount, 4, "min") > boundInMinorUnits(fields.max_amount, 4, "max")
  )
    throw invalidParams("max_amount", "an amount at least min_amount", "max_amount: below min_amount.");
  if (p.expected_count !== undefined && p.apply_to_existing !== true)
    throw invalidParams(
      "expected_count",
      "only with apply_to_existing true",
      "expected_count: it guards apply_to_existing; send apply_to_existing: true with it, or leave it out.",
    );

  for (const [field, value] of [
    ["value", p.value],
    ["set_category", p.set_category],
    ["rename_payee", p.rename_payee],
  ] as const)
    if (value !== undefined && cleanText(value) === "") throw invalidParams(field, "non-blank text", `${field}: must not be blank.`);
  const at = clock.now.toISOString();
  const rule = old === null ? await insertRule(db, userId, fields, p.position, at, clock.ids) : await updateRule(db, userId, old, fields, p.position, at);
  if (p.apply_to_existing !== true) return { before: old, rule, applied: null };

  const changes = await changesOfRule(db, userId, rule);
  // The preview is bound to the transactions it would change as they are, and to the rule it replaces
  // (src/writes/preview.ts): a commit passing its preview_id is refused with stale_preview otherwise.
  // Its count is the transactions' (applied.count, what expected_count names), the rule not counted.
  ctx.bindPreview?.({
    noun: "transactions",
    rows: [
      ...(old === null ? [] : [{ id: old.id, content: old }]),
      ...changes.map((c) => ({ id: c.before.id, content: c.before, updatedAt: c.before.updated_at })),
    ],
    total: changes.length,
  });
  // The cap every bulk write shares (info.x-limits.bulk_write_rows), dry run or not, as update_transactions.
  if (changes.length > limits.bulkWriteRows)
    throw invalidParams(
      "apply_to_existing",
      `a rule that changes at most ${limits.bulkWriteRows} past transactions`,
      `apply_to_existing: applying this rule would change ${changes.length} past transactions; one call changes at most ${limits.bulkWriteRows}. Nothing was changed. Save the rule without apply_to_existing, then file the past with update_transactions over date ranges.`,
    );
  if (!clock.dryRun && p.expected_count !== changes.length)
    throw new AppError(
      "conflict",
      p.expected_count === undefined
        ? `expected_count: applying this rule changes ${changes.length} past transactions. Preview them with dry_run true, then send expected_count: ${changes.length}.`
        : `expected_count: applying this rule now changes ${changes.length} past transactions, not ${p.expected_count}. Preview again with dry_run true and send the count it shows.`,
      { field: "expected_count", expected: String(changes.length) },
    );
  await applyRuleChanges(db, userId, rule, changes, at);
  return { before: old, rule, applied: { count: changes.length, changes } };
}

export function changesToApi(changes: readonly RuleChange[]): ApiRuleChange[] {
  return changes.slice(0, SHOWN_CHANGES).map(({ before, after }) => ({
    transaction_id: before.id,
    date: before.date,
    amount: before.amount.value,
    before: { category: before.category, payee: before.payee, tags: before.tags },
    after: { category: after.category, payee: after.payee, tags: after.tags },
  }));
}

export async function removeRule(ctx: DomainContext, p: { rule_id: string }): Promise<RuleRow> {
  const { db } = ctx;
  const { userId } = ctx.caller;
  await lockRow(db, "rules", userId, p.rule_id);
  const rule = await getRule(db, userId, p.rule_id);
  bindShownRecord(ctx, "rule", rule.id, rule);
  await deleteRule(db, userId, rule);
  return rule;
}

/** list_rules: the person's rules in the order they are tried, as the tools show them. */
export async function listRulesForApi(ctx: DomainContext, _p: object) {
  return { rules: (await listRules(ctx.db, ctx.caller.userId)).map(ruleToApi) };
}
