/** The area (scope suffix: read:<area>, write:<area>) of each audited resource type. */
export const AREA_OF: Readonly<Record<string, string>> = Object.freeze({
  wallet: "wallets",
  transaction: "transactions",
  budget: "budgets",
  goal: "goals",
  bill_reminder: "bills",
  exchange_rate: "wallets",
  rule: "transactions",
  import: "transactions",
  recurring_series: "transactions",
});
