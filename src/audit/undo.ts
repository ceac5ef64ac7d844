/**
 * Undo of one committed write, generically over its captured rows (src/audit/rows.ts): in reverse order,
 * a row it inserted is deleted, a row it updated gets its before-values back, a row it deleted is
 * inserted again with the same key and values. So a create, an update, a delete, a bulk edit or an import
 * is undone exactly and as one change, whatever tool wrote it.
 *
 * A row changed since (by a later write, or by anything else) is not overwritten: the undo is refused with
 * `conflict` naming the later change. Derived tables (monthly totals, expense totals, tags_key) follow by
 * their own triggers. The undo runs inside the write pipeline, so it is audited, captured, and can itself
 * be undone.
 */
import type { Knex } from "knex";
import { AppError, conflict, invalidParams, notFound } from "../errors.js";
import { AREA_OF } from "./areas.js";
import { isUniqueViolation } from "../db/errors.js";
import { laterChangeOf, rowChangesOf, type RowChange } from "./rows.js";

export interface Reversal {
  /** The row's id (a tag row: "<transaction id>#<tag>"). */
  id: string;
  table: string;
  /** What the undo does to it. */
  action: "delete" | "restore" | "revert";
}

export const rowId = (c: Pick<RowChange, "key">): string => Object.values(c.key).map(String).join("#");

/** Driver values and JSON snapshot values compared alike: numbers and BIGINT strings by digits, booleans as 0/1. */
function norm(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean") return v ? "1" : "0";
  return String(v);
}

function sameRow(current: Record<string, unknown> | undefined, snapshot: Record<string, unknown> | null): boolean {
  if (!current || !snapshot) return !current && !snapshot;
  const keys = new Set([...Object.keys(current), ...Object.keys(snapshot)]);
  for (const k of keys) if (norm(current[k]) !== norm(snapshot[k])) return false;
  return true;
}

async function currentRow(db: Knex, c: RowChange): Promise<Record<string, unknown> | undefined> {
  return db(c.table).where(c.key).first();
}

/** The change as it stands: its row changes, or why it cannot be undone (no rows, or a row changed since). */
async function checkUndoable(db: Knex, userId: string, auditId: string): Promise<RowChange[]> {
  const changes = await rowChangesOf(db, userId, auditId);
  if (changes.length === 0)
    throw invalidParams(
      "audit_id",
      "a change recorded with its rows",
      `audit_id: change ${auditId} changed no rows that can be restored (it was recorded before undo existed, or changed nothing). Undo it by hand with the tool that made it.`,
    );
  // Each row must still be exactly what this change left (its last state in the change).
  const last = new Map<string, RowChange>();
  for (const c of changes) last.set(`${c.table} ${c.rowKey}`, c);
  for (const c of last.values()) {
    if (sameRow(await currentRow(db, c), c.after)) continue;
    const later = await laterChangeOf(db, userId, c.table, c.rowKey, auditId);
    throw new AppError(
      "conflict",
      later
        ? `audit_id: ${rowId(c)} was changed again by change ${later} after change ${auditId}; undo change ${later} first (list_changes audit_id ${later} shows it), or change the row by hand.`
        : `audit_id: ${rowId(c)} has changed since change ${auditId} by a write the history does not show; undoing would overwrite it. Change it by hand.`,
      { field: "audit_id", ...(later ? { existing_id: later } : {}) },
    );
  }
  await refuseIfStillReferenced(db, userId, auditId, changes);
  return changes;
}

/**
 * A row the undo would delete (the change created it) that a later change made another row refer to
 * (a goal or bill kept in a new wallet, a budget over it: references a foreign key does not guard) is
 * refused like a changed row, naming that later change. Read from the later changes' captured rows, then
 * confirmed on the referring row as it is now (a reference removed since does not count).
 */
async function refuseIfStillReferenced(db: Knex, userId: string, auditId: string, changes: readonly RowChange[]): Promise<void> {
  const created = changes.filter((c) => c.before === null && typeof c.key.id === "string").map((c) => String(c.key.id));
  for (const id of new Set(created)) {
    const mentions = await db("audit_rows")
      .where({ user_id: userId })
      .andWhere("audit_id", ">", auditId)
      .andWhere("after_json", "like", `%"${id}"%`)
      .orderBy("audit_id", "desc")
      .limit(50)
      .select("audit_id", "table_name", "row_key", "after_json");
    for (const m of mentions) {
      const c = { table: String(m.table_name), rowKey: String(m.row_key), key: JSON.parse(String(m.row_key)) as Record<string, unknown> };
      if (changes.some((x) => x.table === c.table && x.rowKey === c.rowKey)) continue; // a row of this change
      const now = await db(c.table).where(c.key).first();
      if (!now || !Object.values(now).some((v) => typeof v === "string" && v.includes(id))) continue;
      throw new AppError(
        "conflict",
        `audit_id: ${id} is used by ${rowId(c)} since change ${String(m.audit_id)}; undo change ${String(m.audit_id)} first, or change that record by hand.`,
        { field: "audit_id", existing_id: String(m.audit_id) },
      );
    }
  }
}

/** Reverses the change (inside the caller's transaction) and answers what was done to each row. */
export async function undoChange(db: Knex, userId: string, auditId: string): Promise<Reversal[]> {
  const changes = await checkUndoable(db, userId, auditId);
  for (const c of [...changes].reverse()) {
    try {
      if (c.before === null) {
        await db(c.table).where(c.key).delete();
      } else if (c.after === null) {
        await db(c.table).insert(c.before);
      } else {
        await db(c.table).where(c.key).update(c.before);
      }
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict(
          "audit_id",
          `audit_id: restoring ${rowId(c)} would clash with a record made since (a name or external id now taken). Rename or delete that one first.`,
        );
      const code = (err as { code?: string }).code;
      if (code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY")
        throw conflict(
          "audit_id",
          `audit_id: ${rowId(c)} is used by records made since change ${auditId} (transactions in a wallet, contributions to a goal); remove those first.`,
        );
      throw err;
    }
  }
  return netEffect(changes);
}

/** One entry per row, in the order the change first touched them: what the undo does to it overall. */
function netEffect(changes: readonly RowChange[]): Reversal[] {
  const rows = new Map<string, { first: RowChange; last: RowChange }>();
  for (const c of changes) {
    const k = `${c.table} ${c.rowKey}`;
    const found = rows.get(k);
    if (found) found.last = c;
    else rows.set(k, { first: c, last: c });
  }
  const out: Reversal[] = [];
  for (const { first, last } of rows.values()) {
    if (first.before === null && last.after === null) continue; // made and removed by the change itself
    out.push({ id: rowId(first), table: first.table, action: first.before === null ? "delete" : last.after === null ? "restore" : "revert" });
  }
  return out;
}

/** The audit row of one of the user's changes, or undefined (another user's is answered the same as none). */
export async function ownAuditEntry(
  db: Knex,
  userId: string,
  auditId: string,
): Promise<{ id: string; tool: string; resource_type: string; resource_id: string; action: string } | undefined> {
  if (!/^[1-9][0-9]{0,18}$/.test(auditId)) return undefined;
  const row = await db("audit_log").where({ id: auditId, user_id: userId }).first("id", "tool", "resource_type", "resource_id", "action");
  return row
    ? { id: String(row.id), tool: String(row.tool), resource_type: String(row.resource_type), resource_id: String(row.resource_id), action: String(row.action) }
    : undefined;
}

/**
 * undo_change: the user's own change (another user's is not_found), with the write scope of its area
 * (a budgets-only token cannot undo a transaction), reversed.
 */
export async function undoOwnChange(
  db: Knex,
  caller: { userId: string; scopes: ReadonlySet<string> },
  auditId: string,
): Promise<{ entry: NonNullable<Awaited<ReturnType<typeof ownAuditEntry>>>; rows: Reversal[] }> {
  const entry = await ownAuditEntry(db, caller.userId, auditId);
  if (!entry) throw notFound("change", "audit_id", auditId);
  const scope = `write:${AREA_OF[entry.resource_type] ?? entry.resource_type}`;
  if (!caller.scopes.has(scope))
    throw new AppError(
      "insufficient_scope",
      `Undoing change ${entry.id} (${entry.tool}) needs the scope ${scope}, which this token lacks. Ask the user for a token that has it.`,
      {
        scope,
      },
    );
  return { entry, rows: await undoChange(db, caller.userId, entry.id) };
}
