/**
 * The audit log: one row per committed write, written inside the write's transaction. Rows hold resource
 * snapshots and identifiers only; tokens, hashes and passwords never reach them.
 */
import type { Knex } from "knex";

/** What a write did, and to what kind of record (an account import checks an export's entries against these). */
export const AUDIT_ACTIONS = ["create", "update", "delete", "add_funds", "undo", "bulk_update"] as const;
export const AUDIT_RESOURCE_TYPES = [
  "wallet",
  "transaction",
  "budget",
  "goal",
  "bill_reminder",
  "exchange_rate",
  "rule",
  "import",
  "recurring_series",
] as const;

/** The one audit row a committed write produces. before/after are resource snapshots, never secrets. */
export interface AuditChange {
  action: (typeof AUDIT_ACTIONS)[number];
  resourceType: (typeof AUDIT_RESOURCE_TYPES)[number];
  resourceId: string;
  before: unknown;
  after: unknown;
}

export interface AuditEntry {
  id: string;
  created_at: string;
  user_id: string;
  token_id: string | null;
  tool: string;
  action: string;
  resource_type: string;
  resource_id: string;
  before: unknown;
  after: unknown;
  idempotency_key: string;
  request_id: string;
}

export interface AuditWrite {
  userId: string;
  tokenId: string | null;
  tool: string;
  idempotencyKey: string;
  requestId: string;
  at: string;
  change: AuditChange;
}

/** The audit row of a write, as inserted (its id is the database's). */
export function auditRowOf(w: AuditWrite): AuditRow {
  return {
    created_at: w.at,
    user_id: w.userId,
    token_id: w.tokenId,
    tool: w.tool,
    action: w.change.action,
    resource_type: w.change.resourceType,
    resource_id: w.change.resourceId,
    before_json: w.change.before === null || w.change.before === undefined ? null : JSON.stringify(w.change.before),
    after_json: w.change.after === null || w.change.after === undefined ? null : JSON.stringify(w.change.after),
    idempotency_key: w.idempotencyKey,
    request_id: w.requestId,
  };
}

/**
 * Writes the audit row and returns its entry exactly as reading the row back would give it, so that the
 * pipeline can publish the change event without a query after commit.
 */
export async function writeAuditEntry(trx: Knex.Transaction, w: AuditWrite): Promise<AuditEntry> {
  const row = auditRowOf(w);
  const rows = await trx("audit_log").insert(row).returning("id");
  const first = rows[0] as { id: unknown } | unknown;
  return toEntry({ ...row, id: typeof first === "object" && first !== null && "id" in first ? first.id : first });
}

export async function insertAuditRow(trx: Knex.Transaction, w: AuditWrite): Promise<string> {
  return (await writeAuditEntry(trx, w)).id;
}

type AuditRow = Record<string, unknown>;

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: String(row.id),
    created_at: String(row.created_at),
    user_id: String(row.user_id),
    token_id: row.token_id == null ? null : String(row.token_id),
    tool: String(row.tool),
    action: String(row.action),
    resource_type: String(row.resource_type),
    resource_id: String(row.resource_id),
    before: row.before_json == null ? null : JSON.parse(String(row.before_json)),
    after: row.after_json == null ? null : JSON.parse(String(row.after_json)),
    idempotency_key: String(row.idempotency_key),
    request_id: String(row.request_id),
  };
}

export async function readAuditEntry(db: Knex, id: string): Promise<AuditEntry | undefined> {
  if (!/^\d+$/.test(id)) return undefined;
  const row = await db("audit_log").where({ id }).first();
  return row ? toEntry(row) : undefined;
}

/** A user's entries after an id, oldest first: the SSE stream's Last-Event-ID replay. */
export async function auditEntriesAfter(db: Knex, userId: string, afterId: string, limit = 500): Promise<AuditEntry[]> {
  const rows = await db("audit_log").where({ user_id: userId }).andWhere("id", ">", afterId).orderBy("id", "asc").limit(limit);
  return rows.map(toEntry);
}

export interface AuditFilters {
  resourceTypes: readonly string[];
  idempotencyKey?: string;
  auditId?: string;
  tool?: string;
  /** ISO timestamp: entries at or after it. */
  since?: string;
  /** ISO timestamp: entries before it. */
  until?: string;
  /** Only entries written with one of these tokens. */
  tokenIds?: readonly string[];
  /** Keyset paging: entries with a smaller id. */
  beforeId?: string;
}

/**
 * A user's entries newest first, filtered (list_changes; index (user_id, id)): a query over `audit_log`,
 * its rows read with auditEntryOf, so that the reader selects more with each entry in the same statement.
 */
export function auditEntriesQuery(db: Knex, userId: string, f: AuditFilters, limit: number): Knex.QueryBuilder {
  const q = db("audit_log")
    .where({ user_id: userId })
    .whereIn("resource_type", [...f.resourceTypes]);
  if (f.idempotencyKey !== undefined) q.andWhere("idempotency_key", f.idempotencyKey);
  if (f.auditId !== undefined) q.andWhere("audit_log.id", f.auditId);
  if (f.tool !== undefined) q.andWhere("tool", f.tool);
  if (f.since !== undefined) q.andWhere("created_at", ">=", f.since);
  if (f.until !== undefined) q.andWhere("created_at", "<", f.until);
  if (f.tokenIds !== undefined) q.whereIn("token_id", [...f.tokenIds]);
  if (f.beforeId !== undefined) q.andWhere("audit_log.id", "<", f.beforeId);
  return q.orderBy("audit_log.id", "desc").limit(limit);
}

/** A row of auditEntriesQuery as an entry. */
export function auditEntryOf(row: AuditRow): AuditEntry {
  return toEntry(row);
}

/** A user's newest entries first: the audit CLI. */
export async function latestAuditEntries(db: Knex, userId: string, limit: number): Promise<AuditEntry[]> {
  const rows = await db("audit_log").where({ user_id: userId }).orderBy("id", "desc").limit(limit);
  return rows.map(toEntry);
}

/** The id of a user's newest entry, or "0": where a stream opened without Last-Event-ID starts. */
export async function newestAuditId(db: Knex, userId: string): Promise<string> {
  const row = await db("audit_log").where({ user_id: userId }).max({ id: "id" }).first();
  return row?.id == null ? "0" : String(row.id);
}
