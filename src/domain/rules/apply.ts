/**
 * Rules at work: on a transaction being created without a category (create_transaction), and on the past
 * (save_rule with apply_to_existing): every transaction of the person the rule matches, and what applying
 * its actions would change. Transfers are never touched: they move money, they are not spending. Nor
 * are split transactions: their labels are their parts' (docs/ledger.md, "Split transactions").
 */
import type { Knex } from "knex";
import type { Transaction } from "../../../generated/types.js";
import { byPrimaryKey } from "../../db/dialect.js";
import { breathe } from "../../db/pace.js";
import { coerceTransactionRow, transactionsFromRows } from "../transactions/store.js";
import { markRefunds } from "../transactions/parts.js";
import { foldedKeys, foldKey, normalizeTags } from "../shared/text.js";
import { listRules } from "./store.js";
import { firstMatch, ruleMatches, type RuleEffect, type RuleRow } from "./match.js";

export interface Draft {
  walletId: string;
  currency: string;
  direction: string;
  amountMinor: bigint;
  payee: string | null;
  description: string | null;
}

/** The effect of the person's first matching rule on a new transaction, if any. */
export async function ruleFor(db: Knex, userId: string, draft: Draft): Promise<RuleEffect | undefined> {
  if (draft.direction === "transfer") return undefined;
  const rules = await listRules(db, userId);
  return rules.length === 0 ? undefined : firstMatch(rules, { ...draft });
}

export interface RuleChange {
  before: Transaction;
  after: Transaction;
}

/** Transactions read per statement when a rule is matched against the past. */
const RULE_PAGE = 500;

const abs = (v: bigint) => (v < 0n ? -v : v);

/** What applying `rule` to the person's existing transactions would change: only those it actually changes. */
export async function changesOfRule(db: Knex, userId: string, rule: RuleRow): Promise<RuleChange[]> {
  const q = db("transactions").where({ user_id: userId }).whereNull("transfer_id");
  if (rule.wallet_id !== null) q.andWhere("wallet_id", rule.wallet_id);
  if (rule.direction !== null) q.andWhere("direction", rule.direction);
  // A coarse filter in SQL (folded keys exist for payees), the exact decision in ruleMatches.
  if (rule.field === "payee") q.whereNotNull("payee_key");
  else q.whereNotNull("description");
  if (rule.field === "payee" && rule.operator === "equals") q.andWhere("payee_key", foldKey(rule.value));
  // Read a page at a time in (date, id) order, the loop turning between pages: a person's whole history
  // in one statement held the loop for as long as it took to read (issue 51).
  const matching: ReturnType<typeof coerceTransactionRow>[] = [];
  let after: { date: string; id: string } | undefined;
  for (;;) {
    const page = q.clone();
    // A row value: one range of the index (user_id, date, id) on both engines.
    if (after !== undefined) page.whereRaw("(date, id) > (?, ?)", [after.date, after.id]);
    const rows = await page.orderBy([{ column: "date" }, { column: "id" }]).limit(RULE_PAGE);
    for (const row of rows) {
      const r = coerceTransactionRow(row);
      const subject = {
        payee: r.payee,
        description: r.description,
        amountMinor: abs(r.amount_minor),
        currency: r.currency,
        direction: r.direction,
        walletId: r.wallet_id,
      };
      if (ruleMatches(rule, subject)) matching.push(r);
    }
    if (rows.length < RULE_PAGE) break;
    after = { date: String(rows[rows.length - 1].date), id: String(rows[rows.length - 1].id) };
    await breathe();
  }
  const befores = await transactionsFromRows(db, matching);
  const out: RuleChange[] = [];
  const tags = normalizeTags(rule.add_tags);
  for (const before of befores) {
    if (before.parts !== undefined) continue;
    const after: Transaction = {
      ...before,
      category: rule.set_category ?? before.category,
      payee: rule.rename_payee ?? before.payee,
      tags: [...new Set([...before.tags, ...tags])].sort(),
    };
    if (after.category !== before.category || after.payee !== before.payee || after.tags.length !== before.tags.length) out.push({ before, after });
  }
  return out;
}

/** Writes the changes (one UPDATE per chunk: a rule sets the same values on every row it changes). */
export async function applyRuleChanges(db: Knex, userId: string, rule: RuleRow, changes: readonly RuleChange[], at: string): Promise<void> {
  const ids = changes.map((c) => c.before.id);
  const patch: Record<string, unknown> = { updated_at: at };
  if (rule.set_category !== null) Object.assign(patch, { category: rule.set_category, ...foldedKeys({ category: rule.set_category }) });
  if (rule.rename_payee !== null) Object.assign(patch, { payee: rule.rename_payee, ...foldedKeys({ payee: rule.rename_payee }) });
  // Chunks of a few milliseconds each on SQLite (their triggers included; src/db/pace.ts turns between).
  for (let i = 0; i < ids.length; i += 200) {
    await byPrimaryKey(db, "transactions")
      .where({ user_id: userId })
      .whereIn("id", ids.slice(i, i + 200))
      .update(patch);
  }
  const newTags = changes.flatMap((c) =>
    c.after.tags.filter((t) => !c.before.tags.includes(t)).map((tag) => ({ transaction_id: c.before.id, user_id: userId, tag })),
  );
  for (let i = 0; i < newTags.length; i += 200) await db("transaction_tags").insert(newTags.slice(i, i + 200));
  // Whether an income is a refund depends on its category (docs/ledger.md, "Refunds"), as in update_transactions.
  if (rule.set_category !== null) await markRefunds(db, userId, ids);
  for (const c of changes) c.after.updated_at = at;
}
