/**
 * The audit's per-row snapshots (migration 20261125080102): what each committed write did to each row of
 * the user's data, captured by triggers while the write pipeline's marker is set. undo_change reads them.
 */
import { breathe } from "../db/pace.js";
import type { Knex } from "knex";
import { assertSqliteCapture } from "../db/row-capture.js";

/**
 * Postgres: the setting, local to a write's transaction, that switches the capture on for the user it
 * names (migration 20261125230000; set by src/writes/bookkeeping.ts with the write's locks). The marker
 * row below does the same on SQLite.
 */
export const CAPTURE_SETTING = "finance_mcp.capture_user";
/** Postgres: the write's audit id, set beside CAPTURE_SETTING; the triggers store it with each row (migration 20261128120000). */
export const CAPTURE_AUDIT_SETTING = "finance_mcp.capture_audit";

/**
 * SQLite: marks the start of a write: the capture triggers record the user's rows from here on (same
 * transaction). The insert takes the database's one write lock, so the check that follows sees the
 * triggers exactly as this write will fire them: none can be dropped before it commits.
 */
export async function startCapture(trx: Knex.Transaction, userId: string): Promise<void> {
  await trx("audit_capture").insert({ user_id: userId });
  await assertSqliteCapture(trx);
}

/** Captured rows linked to their audit row per statement. */
const LINK_CHUNK = 1000;

/** Links the rows captured during the write to its audit row, and stops capturing. */
export async function finishCapture(trx: Knex.Transaction, userId: string, auditId: string): Promise<void> {
  // A chunk of rows per statement, the loop turning between them on SQLite (src/db/pace.ts): an import at
  // the cap captured 15,000 rows, whose one UPDATE held the loop 30–45 ms (issue 51). Same transaction.
  for (;;) {
    const unlinked = trx("audit_rows").where({ user_id: userId }).whereNull("audit_id").limit(LINK_CHUNK).select("id");
    const linked = await trx("audit_rows").whereIn("id", unlinked).update({ audit_id: auditId });
    if (Number(linked) < LINK_CHUNK) break;
  }
  await trx("audit_capture").where({ user_id: userId }).delete();
}

export interface RowChange {
  table: string;
  /** The row's key as the engine wrote it (JSON text); compared as stored, never rebuilt. */
  rowKey: string;
  key: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  auditId: string;
}

/**
 * A snapshot as the row's column values. SQLite's json_object embeds a text column holding JSON that a
 * JSON function just made (transactions.tags_key) as JSON rather than as text: such a value is turned
 * back into its text, the column's value.
 */
function parse(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined) return null;
  const row = JSON.parse(String(v)) as Record<string, unknown>;
  for (const [k, x] of Object.entries(row)) if (x !== null && typeof x === "object") row[k] = JSON.stringify(x);
  return row;
}

function toChange(r: Record<string, unknown>): RowChange {
  return {
    table: String(r.table_name),
    rowKey: String(r.row_key),
    key: parse(r.row_key)!,
    before: parse(r.before_json),
    after: parse(r.after_json),
    auditId: String(r.audit_id),
  };
}

/** The rows one write changed, in the order it changed them. */
export async function rowChangesOf(db: Knex, userId: string, auditId: string): Promise<RowChange[]> {
  // Read and parsed a page at a time, the loop turning in between: an import at the cap captured
  // 15,000 rows, whose one read and parse held the loop 0.6 s (issue 51).
  const out: RowChange[] = [];
  let last: unknown = null;
  for (;;) {
    const q = db("audit_rows").where({ user_id: userId, audit_id: auditId });
    if (last !== null) q.andWhere("id", ">", last as string);
    const rows = await q.orderBy("id").limit(PAGE);
    for (const r of rows) out.push(toChange(r));
    if (rows.length < PAGE) return out;
    last = rows[rows.length - 1]!.id;
    await breathe();
  }
}

/** Captured rows read per statement by rowChangesOf (a few milliseconds each). */
const PAGE = 250;

/** The newest write after `afterAuditId` that changed this row, if the log has one (the one to undo first). */
export async function laterChangeOf(db: Knex, userId: string, table: string, rowKey: string, afterAuditId: string): Promise<string | undefined> {
  const row = await db("audit_rows")
    .where({ user_id: userId, table_name: table, row_key: rowKey })
    .andWhere("audit_id", ">", afterAuditId)
    .orderBy("audit_id", "desc")
    .first("audit_id");
  return row ? String(row.audit_id) : undefined;
}

/** The migration that made the row capture: a write committed before it ran has no rows, by design. */
const CAPTURE_MIGRATION = "20261125080102_add_audit_rows.js";

/**
 * Why a committed write has no captured rows: "before_capture" when it was committed before the capture
 * migration ran on this database (and no earlier write of the user has rows, which a clock set back
 * could otherwise hide); "not_captured" otherwise: it changed no rows, or it was committed while capture
 * was switched off (issue 47: a CLI command beside a running SQLite server dropped the triggers).
 */
export async function missingRowsCause(db: Knex, userId: string, auditId: string): Promise<"before_capture" | "not_captured"> {
  const migrated = (await db("knex_migrations").where({ name: CAPTURE_MIGRATION }).first("migration_time")) as { migration_time?: unknown } | undefined;
  const audit = (await db("audit_log").where({ user_id: userId, id: auditId }).first("created_at")) as { created_at?: unknown } | undefined;
  if (migrated?.migration_time == null || audit?.created_at == null) return "not_captured";
  const time = (v: unknown) => (v instanceof Date ? v : new Date(typeof v === "number" || typeof v === "bigint" ? Number(v) : String(v))).getTime();
  if (!(time(audit.created_at) < time(migrated.migration_time))) return "not_captured";
  const earlier = await db("audit_rows").where({ user_id: userId }).andWhere("audit_id", "<", auditId).first("id");
  return earlier ? "not_captured" : "before_capture";
}
