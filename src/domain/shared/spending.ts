/**
 * The one meaning of spending (docs/ledger.md, "Refunds"), as SQL over any source of lines: what a person
 * spent is their expenses net of refunds, each refund negative spending in its own category, and the
 * refunds are shown apart. A line is spending when it is an expense or a refund (an income, or part of
 * one, flagged refund by markRefunds); income is an income line that is not a refund; transfers are
 * neither. transactions/spending.ts applies it to the ledger's lines (the summary, categories and tags,
 * the forecast); budgets/status.ts to its per-day totals. Here, in a leaf module, because the budgets
 * area may not import the transactions area (which imports it).
 */

/** The columns a line's rule reads: its transaction's direction and its refund flag (0 or 1). */
interface LineColumns {
  direction: string;
  refund: string;
  amount: string;
}

/**
 * The rule as SQL over any source of lines (budgets read a table of per-day expense totals beside the
 * split and refund rows, with their own column names): conditions and signed magnitudes.
 */
export function spendingSql(c: LineColumns) {
  const isSpending = `(${c.direction} = 'expense' OR ${c.refund} = 1)`;
  const isRefund = `(${c.direction} = 'income' AND ${c.refund} = 1)`;
  const isIncome = `(${c.direction} = 'income' AND ${c.refund} = 0)`;
  return {
    isSpending,
    isRefund,
    isIncome,
    /** SUM of what was spent net of refunds, positive when more went out than came back. */
    spent: `SUM(CASE WHEN ${isSpending} THEN -(${c.amount}) ELSE 0 END)`,
    /** SUM of the refunds, positive. */
    refunds: `SUM(CASE WHEN ${isRefund} THEN ${c.amount} ELSE 0 END)`,
    /** SUM of the income that is not a refund, positive. */
    income: `SUM(CASE WHEN ${isIncome} THEN ${c.amount} ELSE 0 END)`,
  };
}
