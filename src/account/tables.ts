/**
 * Which rows are a person's, derived from the live schema (src/db/schema-tables.ts) rather than listed by
 * hand, so that deleting an account cannot miss a table a later migration adds:
 *   - the person's row of `users`;
 *   - every row of a table with a `user_id` column whose value is the person's id;
 *   - every row of a table without one that references such a row through a foreign key (an OAuth refresh
 *     token through its grant; any depth), unless that key is ON DELETE SET NULL / SET DEFAULT, which says
 *     the row outlives what it points to and so belongs to someone else.
 * The rows are deleted children first (each table before the tables its foreign keys point to), so no
 * cascade deletes anything behind the count's back.
 *
 * The rules below only name and order what the schema yields: how the deletion page shows a table, and
 * the few tables that must go first or last. test/account/account-tables.test.ts fails, on both engines,
 * when a table holds a person's rows and has no rule here, or holds nobody's and is not listed in
 * NOT_ACCOUNT_DATA with its reason: a new table is then classified on purpose (docs/decisions.md,
 * "Deleting an account").
 */
import type { Knex } from "knex";
import { readSchemaTables, type SchemaTable } from "../db/schema-tables.js";

export interface AccountTableRule {
  /** What the person reads on the deletion page, plural ("transactions"). */
  label: string;
  /** Shown as its own line; otherwise summed into "records the service keeps for your account". */
  shown: boolean;
  /**
   * "first": its rows switch something on for the person (audit_capture makes triggers copy every
   * deleted row into audit_rows); "last": triggers on other tables keep it (deleting a transaction
   * writes its negative into the totals, so the totals go after the transactions).
   */
  phase?: "first" | "last";
}

export const ACCOUNT_TABLE_RULES: Readonly<Record<string, AccountTableRule>> = {
  wallets: { label: "wallets", shown: true },
  transactions: { label: "transactions", shown: true },
  budgets: { label: "budgets", shown: true },
  goals: { label: "savings goals", shown: true },
  goal_contributions: { label: "goal contributions", shown: true },
  bill_reminders: { label: "bill reminders", shown: true },
  rules: { label: "categorisation rules", shown: true },
  exchange_rates: { label: "exchange rates", shown: true },
  recurring_decisions: { label: "decisions on regular payments", shown: true },
  mcp_tokens: { label: "tokens (active, expired and revoked)", shown: true },
  oauth_grants: { label: "connected clients (OAuth grants)", shown: true },
  calendar_feeds: { label: "calendar feed links", shown: true },
  bank_connections: { label: "bank connections (their sealed credentials)", shown: true },
  bank_accounts: { label: "bank accounts linked to wallets", shown: false },
  audit_log: { label: "change-history entries", shown: true },
  web_sessions: { label: "sign-in sessions (this one included)", shown: true },
  transaction_tags: { label: "tags on transactions", shown: false },
  transaction_parts: { label: "parts of split transactions", shown: false },
  import_keys: { label: "statement import keys", shown: false },
  import_mappings: { label: "statement layouts remembered per wallet", shown: false },
  idempotency_keys: { label: "stored answers of recent calls", shown: false },
  oauth_codes: { label: "OAuth authorization codes", shown: false },
  oauth_refresh_tokens: { label: "OAuth refresh tokens", shown: false },
  audit_rows: { label: "rows kept for undoing changes", shown: false },
  mcp_sessions: { label: "what connected chatbots can ask you", shown: false },
  request_states_used: { label: "answered confirmation requests", shown: false },
  previews_used: { label: "previews already committed", shown: false },
  audit_capture: { label: "undo capture switches", shown: false, phase: "first" },
  // Written by the deletion itself (SQLite): after the tables whose triggers read it.
  account_erasure: { label: "the deletion's own mark", shown: false, phase: "last" },
  wallet_month_totals: { label: "monthly wallet totals", shown: false, phase: "last" },
  expense_day_totals: { label: "daily spending totals", shown: false, phase: "last" },
  recurring_payees: { label: "recent charges per payee (for recurring payments)", shown: false, phase: "last" },
};

/** Tables that hold no person's rows, and why (checked against the live schema by the same test). */
export const NOT_ACCOUNT_DATA: Readonly<Record<string, string>> = {
  kb_entries: "the help articles, the same for everyone",
  oauth_clients: "registered OAuth clients (apps), shared by everyone who connects them; a person's link to one is a grant",
  oauth_pending: "authorization requests not yet tied to anyone (they expire in minutes)",
  rate_limits:
    "counters keyed by token id, address or a hash of an email, expiring within the hour; a person's are deleted by key with the account (src/limits/account-keys.ts)",
  server_secrets: "the server's own keys",
};
/** SQLite's full-text index of the help articles (a virtual table and its shadow tables). */
export const NOT_ACCOUNT_DATA_SQLITE = /^kb_fts(_(config|content|data|docsize|idx))?$/;

/** How a table's rows are found: a column equal to the person's id, or a column pointing into another table's rows. */
export type RowsOf = { kind: "user"; column: string } | { kind: "references"; column: string; parent: string; parentColumn: string };

export interface AccountTable {
  table: string;
  rowsOf: RowsOf;
  /** Undefined for a table no rule names yet (deleted all the same, shown by its table name). */
  rule: AccountTableRule | undefined;
}

export const USERS_TABLE = "users";

/** The person's tables (users excluded), in the order their rows are deleted. */
export function accountTables(schema: readonly SchemaTable[]): AccountTable[] {
  const found = new Map<string, RowsOf>();
  for (const t of schema) if (t.name !== USERS_TABLE && t.columns.includes("user_id")) found.set(t.name, { kind: "user", column: "user_id" });
  // Tables that reach a person's row only through foreign keys, to any depth.
  for (let grew = true; grew;) {
    grew = false;
    for (const t of schema) {
      if (t.name === USERS_TABLE || found.has(t.name)) continue;
      const fk = t.foreignKeys.find((k) => owning(k.onDelete) && (k.refTable === USERS_TABLE || found.has(k.refTable)));
      if (!fk) continue;
      found.set(t.name, { kind: "references", column: fk.column, parent: fk.refTable, parentColumn: fk.refColumn });
      grew = true;
    }
  }
  return deletionOrder(schema, found).map((table) => ({ table, rowsOf: found.get(table)!, rule: ACCOUNT_TABLE_RULES[table] }));
}

const owning = (onDelete: string) => onDelete !== "set null" && onDelete !== "set default";
function phaseOf(table: string): number {
  const phase = ACCOUNT_TABLE_RULES[table]?.phase;
  return phase === "first" ? 0 : phase === "last" ? 2 : 1;
}

/**
 * Kahn's order over "a row before the rows it references": of the tables free to go, the one of the
 * earliest phase, then by name (the same order on both engines). A cycle of foreign keys cannot be
 * ordered and is an error, found by the test before any person meets it.
 */
function deletionOrder(schema: readonly SchemaTable[], found: Map<string, RowsOf>): string[] {
  const tables = [...found.keys()];
  const waitsFor = new Map<string, Set<string>>(tables.map((t) => [t, new Set<string>()]));
  for (const t of schema) {
    if (!found.has(t.name)) continue;
    for (const k of t.foreignKeys) if (k.refTable !== t.name && found.has(k.refTable)) waitsFor.get(k.refTable)!.add(t.name);
  }
  const order: string[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const free = [...left].filter((t) => [...waitsFor.get(t)!].every((child) => !left.has(child))).sort((a, b) => phaseOf(a) - phaseOf(b) || (a < b ? -1 : 1));
    if (free.length === 0) throw new Error(`the foreign keys of ${[...left].join(", ")} form a cycle: no deletion order`);
    order.push(free[0]!);
    left.delete(free[0]!);
  }
  return order;
}

/** The person's tables of the live database, in deletion order. */
export async function liveAccountTables(db: Knex | Knex.Transaction): Promise<AccountTable[]> {
  return accountTables(await readSchemaTables(db));
}

/** A query builder restricted to the person's rows of `t` (nested subqueries for tables reached through keys). */
export function rowsOf(db: Knex | Knex.Transaction, tables: readonly AccountTable[], t: AccountTable, userId: string): Knex.QueryBuilder {
  return db(t.table).where(condition(db, tables, t.table, userId));
}

function condition(db: Knex | Knex.Transaction, tables: readonly AccountTable[], table: string, userId: string): (q: Knex.QueryBuilder) => void {
  if (table === USERS_TABLE) return (q) => void q.where("id", userId);
  const t = tables.find((x) => x.table === table)!;
  const r = t.rowsOf;
  if (r.kind === "user") return (q) => void q.where(r.column, userId);
  return (q) =>
    void q.whereIn(
      r.column,
      db(r.parent)
        .select(r.parentColumn)
        .where(condition(db, tables, r.parent, userId)),
    );
}
