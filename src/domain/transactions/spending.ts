/**
 * One meaning of spending (docs/ledger.md, "Refunds"): what a person spent is their expenses net of
 * refunds, each refund negative spending in its own category, and the refunds are also shown apart. Every
 * reader that adds spending up (get_transaction_summary, list_categories and list_tags, budget status,
 * the forecast to come) takes the rule from here, over the lines of query.ts (a split row's parts, any
 * other row as itself), so a model never gets one figure from one tool and another from the next.
 *
 * The rule itself is shared/spending.ts (spendingSql, over any columns: budgets read their own table of
 * per-day expense totals); this module applies it to the ledger's lines.
 */
import type { Knex } from "knex";
import { spendingSql } from "../shared/spending.js";
import { LINE, linesQuery, type TransactionFilter } from "./query.js";

/** linesQuery's columns (t and its parts p). */
const LINES = { direction: "t.direction", refund: LINE.refund, amount: LINE.amount };

/** The rule over linesQuery's lines. */
export const SPENDING = spendingSql(LINES);

/** What a reader asks for: spending (expenses and the refunds netted into them), income, or both. */
type SpendingSide = "expense" | "income" | undefined;

/**
 * The user's lines that count towards income or spending (transfers never do), filtered: the direction
 * of a summary means the side, so "expense" keeps the refunds that are taken off it and "income" leaves
 * them out; a refund is negative spending whatever the filter.
 */
export function moneyLinesQuery(db: Knex, f: Omit<TransactionFilter, "direction">, side: SpendingSide = undefined): Knex.QueryBuilder {
  const q = linesQuery(db, { ...f, direction: ["income", "expense"] });
  if (side === "expense") q.andWhereRaw(SPENDING.isSpending);
  else if (side === "income") q.andWhereRaw(SPENDING.isIncome);
  return q;
}
