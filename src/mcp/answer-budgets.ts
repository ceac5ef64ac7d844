/**
 * What the text of an answer may cost a model (docs/decisions.md#what-a-model-reads): measured by `npm run surface` over the demo
 * ledger and asserted by test/protocol/answer-budgets.test.ts (both through scripts/answer-measure.ts).
 * o200k tokens of the content text.
 */
export const ANSWER_BUDGETS = Object.freeze({
  /** list_capabilities with every scope: one line per tool and what only it knows. */
  listCapabilitiesTokens: 1500,
  /**
   * One expense or income in a list_transactions answer: its row of the page's table plus its share of
   * what the table states once (column names, fields equal on every row, the wallet ids rows point to;
   * src/mcp/model-text.ts). Measured on full pages of the demo ledger, ~45 on average, ~55 at most
   * (a row with a tag and a description). A transfer leg carries two more opaque ids (~80) and is not
   * held to it; nor is a page of one (an object with its wallet id, ~77).
   */
  listedTransactionTokens: 60,
  /**
   * An import_transactions preview at its default page of 20 rows (a 5,000-row statement: counts, mapping,
   * reconciliation, warnings, rows; ~900 measured). Its largest page (200 rows) is held to anyAnswerTokens.
   */
  importPreviewTokens: 1500,
  /**
   * An update_transactions preview: the counts and the first 20 rows that change (the spec's maxItems),
   * each with its before and after (~1,000 measured over every expense of the demo ledger).
   */
  bulkPreviewTokens: 1500,
  /**
   * "What changed today?": list_changes with day and limit 15 over the demo ledger, each change in the
   * person's words with its client and rows (test/tools/list-changes-readable.test.ts).
   */
  changesTodayTokens: 1500,
  /**
   * get_cash_flow_forecast a year ahead over the demo ledger: wallets, 13 months, the low point's events;
   * its day-by-day series is for the app and not in the text (~700 measured).
   */
  forecastTokens: 1200,
  /** Any answer at the largest page size. */
  anyAnswerTokens: 20000,
});
