/**
 * The tables of a user's data whose rows the audit captures for undo (migration 20261125080102 and
 * src/db/row-capture.ts), each with its key columns. Derived tables (wallet_month_totals,
 * expense_day_totals) are not captured: their triggers follow the captured rows back. A new table of a
 * user's data that writes change belongs here.
 */
export const CAPTURED_TABLES = Object.freeze([
  { table: "wallets", key: ["id"] },
  { table: "transactions", key: ["id"] },
  { table: "transaction_tags", key: ["transaction_id", "tag"] },
  { table: "transaction_parts", key: ["transaction_id", "position"] },
  { table: "budgets", key: ["id"] },
  { table: "goals", key: ["id"] },
  { table: "goal_contributions", key: ["id"] },
  { table: "bill_reminders", key: ["id"] },
  { table: "exchange_rates", key: ["id"] },
  // The import ledger (migration 20261125110000): undoing an import forgets its rows' keys, so the same
  // statement can be imported again.
  { table: "import_keys", key: ["user_id", "wallet_id", "key"] },
  // A CSV mapping remembered per wallet (migration 20261128160000): undoing the import that saved or
  // changed it restores the one before, or removes it.
  { table: "import_mappings", key: ["user_id", "wallet_id", "fingerprint"] },
  // The person's decisions on their regular payments (migration 20261128170000).
  { table: "recurring_decisions", key: ["id"] },
]);
