/**
 * Whether a rule matches a transaction, and what it does to it. Pure: the same function decides for a
 * transaction being created, a statement row being imported and a transaction of the past. Conditions
 * compare folded text (foldKey: NFC, lower case), so "REWE" matches "Rewe Markt"; no regular expressions
 * come from the model (docs/decisions.md#rules-without-regular-expressions).
 */
import { exponentOf, boundInMinorUnits } from "../shared/amounts.js";
import { foldKey, normalizeTags } from "../shared/text.js";

export type RuleField = "payee" | "description";
export type RuleOperator = "equals" | "contains" | "starts_with";

export interface RuleRow {
  id: string;
  position: number;
  field: RuleField;
  operator: RuleOperator;
  value: string;
  min_amount: string | null;
  max_amount: string | null;
  direction: "expense" | "income" | null;
  wallet_id: string | null;
  set_category: string | null;
  add_tags: string[];
  rename_payee: string | null;
}

/** What a rule looks at. amountMinor is the magnitude (positive) in the currency's minor units. */
export interface RuleSubject {
  payee: string | null;
  description: string | null;
  amountMinor: bigint;
  currency: string;
  direction: string;
  walletId: string;
}

/** What the first matching rule gives a transaction. */
export interface RuleEffect {
  ruleId: string;
  category: string | null;
  tags: string[];
  payee: string | null;
}

function textMatches(rule: RuleRow, text: string | null): boolean {
  if (text === null) return false;
  const have = foldKey(text);
  const want = foldKey(rule.value);
  if (rule.operator === "equals") return have === want;
  if (rule.operator === "starts_with") return have.startsWith(want);
  return have.includes(want);
}

export function ruleMatches(rule: RuleRow, s: RuleSubject): boolean {
  if (s.direction === "transfer") return false;
  if (rule.direction !== null && rule.direction !== s.direction) return false;
  if (rule.wallet_id !== null && rule.wallet_id !== s.walletId) return false;
  const exponent = exponentOf(s.currency);
  if (rule.min_amount !== null && s.amountMinor < boundInMinorUnits(rule.min_amount, exponent, "min")) return false;
  if (rule.max_amount !== null && s.amountMinor > boundInMinorUnits(rule.max_amount, exponent, "max")) return false;
  return textMatches(rule, rule.field === "payee" ? s.payee : s.description);
}

/** The first rule, in the person's order, that matches; undefined when none does. */
export function firstMatch(rules: readonly RuleRow[], s: RuleSubject): RuleEffect | undefined {
  const rule = rules.find((r) => ruleMatches(r, s));
  if (rule === undefined) return undefined;
  return { ruleId: rule.id, category: rule.set_category, tags: normalizeTags(rule.add_tags), payee: rule.rename_payee };
}
