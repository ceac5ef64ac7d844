/**
 * Query plans read for cost (issue 53): whether a statement reads the person's ledger once per row of
 * something else. Each statement a read tool sends is explained on its engine and walked:
 *
 * - SQLite (EXPLAIN QUERY PLAN): every join is a nested loop, so a table access that is not the first of
 *   its SELECT runs once per row of the loops before it, and an access inside a CORRELATED subquery runs
 *   once per outer row. Such an access to a ledger table is a per-row ledger read when it is a SCAN, or a
 *   SEARCH whose only constraint is the user (`(user_id=?)`: every row of the person).
 * - Postgres (EXPLAIN (FORMAT JSON), planned with enable_seqscan off so that a small test table does not
 *   hide a missing index): a ledger relation under a SubPlan or on the inner side of a Nested Loop (not
 *   behind a Materialize or Hash, built once) is a per-row ledger read when it is a Seq Scan, or an index
 *   scan matched to the outer row by user_id alone.
 *
 * What runs once (a MATERIALIZE or CO-ROUTINE body, a hashed side) is not per row. The rule is about
 * shape, not size: it holds on a ledger of ten rows as on one of a million.
 */
import type { Knex } from "knex";

/** The tables that grow with a person's history. */
export const LEDGER_TABLES = ["transactions", "transaction_tags", "transaction_parts", "audit_log", "audit_rows", "import_keys", "goal_contributions"];

export interface Captured {
  sql: string;
  bindings: readonly unknown[];
}

/** The statements `fn` sends through `db`, with their bindings. */
export async function capture(db: Knex, fn: () => Promise<unknown>, skip: RegExp): Promise<Captured[]> {
  const seen: Captured[] = [];
  const listener = (q: { sql: string; bindings?: unknown[] }) => {
    if (!skip.test(q.sql) && /^\s*(with|select)\b/i.test(q.sql)) seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  };
  db.on("query", listener);
  try {
    await fn();
  } finally {
    db.off("query", listener);
  }
  return seen;
}

/** "alias → table" for the ledger tables a statement names (`transactions t`, `"transactions" as "t"`). */
function aliases(sql: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const table of LEDGER_TABLES) {
    out.set(table, table);
    const re = new RegExp(`["\`]?\\b${table}\\b["\`]?\\s+(?:as\\s+)?["\`]?([a-z_][a-z0-9_]*)["\`]?`, "gi");
    for (const m of sql.matchAll(re)) {
      const alias = m[1]!.toLowerCase();
      if (!["where", "on", "join", "left", "inner", "group", "order", "limit", "union", "set", "and", "using"].includes(alias)) out.set(alias, table);
    }
  }
  return out;
}

interface SqliteRow {
  id: number;
  parent: number;
  detail: string;
}

function sqlitePerRowReads(sql: string, rows: SqliteRow[]): string[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const names = aliases(sql);
  const found: string[] = [];
  const access = /^(SCAN|SEARCH) (\S+)(?: USING (?:COVERING |PRIMARY KEY |INTEGER PRIMARY KEY )?(?:INDEX (\S+) )?\(([^)]*)\))?/;
  for (const row of rows) {
    const m = access.exec(row.detail);
    if (!m) continue;
    const table = names.get(m[2]!.toLowerCase());
    if (!table) continue;
    // Per row: a loop after another at its level, or inside a correlated subquery.
    const siblings = rows.filter((r) => r.parent === row.parent && r.id < row.id && access.test(r.detail));
    let correlated = false;
    for (let p = byId.get(row.parent); p; p = byId.get(p.parent)) {
      if (/^CORRELATED /.test(p.detail)) correlated = true;
      if (/^(MATERIALIZE|CO-ROUTINE)\b/.test(p.detail)) break;
    }
    if (!siblings.length && !correlated) continue;
    const wholeLedger = m[1] === "SCAN" || (m[4] ?? "").trim() === "user_id=?";
    if (wholeLedger) found.push(`${table}: ${row.detail}${correlated ? " (in a correlated subquery)" : " (inner loop of a join)"}`);
  }
  return found;
}

type PgNode = Record<string, unknown> & { Plans?: PgNode[] };

function postgresPerRowReads(plan: PgNode): string[] {
  const found: string[] = [];
  const walk = (node: PgNode, perRow: boolean) => {
    const relation = node["Relation Name"] as string | undefined;
    if (perRow && relation && LEDGER_TABLES.includes(relation)) {
      const type = String(node["Node Type"]);
      const cond = String(node["Index Cond"] ?? node["Recheck Cond"] ?? "");
      // Matched to the outer row (a column of another relation in the condition) by the user alone.
      const correlated = /\b[a-z_][a-z0-9_]*\.[a-z_]+/.test(cond);
      const onlyUser = /user_id/.test(cond) && !/\bAND\b/.test(cond);
      if (type === "Seq Scan" || (correlated && onlyUser)) found.push(`${relation}: ${type}${cond ? ` on ${cond}` : ""}`);
    }
    for (const child of node.Plans ?? []) {
      const rel = String(child["Parent Relationship"] ?? "");
      const inner = (node["Node Type"] === "Nested Loop" && rel === "Inner") || rel === "SubPlan";
      // Built once, whatever asks for it after: a materialised or hashed side.
      const once = child["Node Type"] === "Materialize" || child["Node Type"] === "Hash";
      walk(child, once ? false : perRow || inner);
    }
  };
  walk(plan, false);
  return found;
}

/** The per-row ledger reads in one statement's plan, described; empty when there is none. */
export async function perRowLedgerReads(db: Knex, statement: Captured, engine: "sqlite" | "postgres"): Promise<string[]> {
  if (engine === "sqlite") {
    const rows = (await db.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.bindings as Knex.RawBinding[])) as SqliteRow[];
    return sqlitePerRowReads(statement.sql, rows);
  }
  // knex reports Postgres statements with $n placeholders; raw takes ?.
  const sql = statement.sql.replace(/\$\d+/g, "?");
  return db.transaction(async (trx) => {
    await trx.raw("SET LOCAL enable_seqscan = off");
    const r = (await trx.raw(`EXPLAIN (FORMAT JSON) ${sql}`, statement.bindings as Knex.RawBinding[])) as { rows: { "QUERY PLAN": { Plan: PgNode }[] }[] };
    return postgresPerRowReads(r.rows[0]!["QUERY PLAN"][0]!.Plan);
  });
}
