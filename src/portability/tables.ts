/**
 * What an account's data is, for export and import: the user's rows of each table, in an order where
 * every row's references come before it. Derived data is left out (the totals tables and
 * transactions.tags_key are kept by triggers; idempotency keys expire; tokens are credentials and stay
 * with the account they were made for).
 *
 * Rows are taken whole (every column but user_id), so a column added by a later migration is exported
 * without a change here; the export names the last migration it was made under, and an import refuses a
 * file made under a migration this database has not run.
 */
export interface TableSpec {
  /** The key of the export's section. */
  section: string;
  table: string;
  /** Columns not exported: derived, or meaningless in another account. */
  omit: string[];
  orderBy: string | string[];
  /** A section added to version 1 later: an export made before it has none, which imports as empty. */
  optional?: boolean;
}

export const ACCOUNT_TABLES: readonly TableSpec[] = [
  { section: "wallets", table: "wallets", omit: ["user_id"], orderBy: "id" },
  { section: "transactions", table: "transactions", omit: ["user_id", "tags_key"], orderBy: "id" },
  { section: "budgets", table: "budgets", omit: ["user_id"], orderBy: "id" },
  { section: "goals", table: "goals", omit: ["user_id"], orderBy: "id" },
  { section: "goal_contributions", table: "goal_contributions", omit: ["user_id"], orderBy: "id" },
  { section: "bill_reminders", table: "bill_reminders", omit: ["user_id"], orderBy: "id" },
  { section: "rules", table: "rules", omit: ["user_id"], orderBy: "position", optional: true },
  { section: "exchange_rates", table: "exchange_rates", omit: ["user_id"], orderBy: "id", optional: true },
  // The CSV mappings remembered per wallet and layout (src/domain/imports/mappings.ts), after the wallets.
  { section: "import_mappings", table: "import_mappings", omit: ["user_id"], orderBy: ["wallet_id", "fingerprint"], optional: true },
  { section: "recurring_decisions", table: "recurring_decisions", omit: ["user_id"], orderBy: "id", optional: true },
  // A token of the old account means nothing in the new one; the audit id is the new log's.
  { section: "audit_log", table: "audit_log", omit: ["user_id", "token_id"], orderBy: "id" },
];

/** Transactions carry their tags as an array (the rows of transaction_tags). */
export const TAGS_TABLE = "transaction_tags";

/** A split transaction carries its parts as a list (the rows of transaction_parts, in position order). */
export const PARTS_TABLE = "transaction_parts";
