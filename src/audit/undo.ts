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
import { breathe } from "../db/pace.js";
import type { Knex } from "knex";
import { AppError, conflict, invalidParams, notFound } from "../errors.js";
import { AREA_OF } from "./areas.js";
import { isUniqueViolation } from "../db/errors.js";
import { laterChangeOf, missingRowsCause, rowChangesOf, type RowChange } from "./rows.js";
import { capturedTables } from "../db/row-capture.js";
import { limits } from "../../generated/limits.js";
import type { DomainContext } from "../context.js";

type BindPreview = DomainContext["bindPreview"];

export interface Reversal {
  /** The row's id (a tag row: "<transaction id>#<tag>"). */
  id: string;
  table: string;
  /** What the undo does to it. */
  action: "delete" | "restore" | "revert";
  /** A reverted row: each field that changes, as it is now (before the undo) and after it (issue 39). */
  changes?: { field: string; before: string | number | boolean | null; after: string | number | boolean | null }[];
}

/** Columns a person never reads: the owner, timestamps, and keys derived from other columns (folded text, tags_key). */
const HIDDEN_COLUMN = /^(user_id|created_at|updated_at|tags_key|.*_key|.*_normalized)$/;

/** A stored value as a ChangeValue: text, a whole number, true/false or null (a fraction as its text). */
const shown = (v: unknown): string | number | boolean | null =>
  v === null || v === undefined ? null : typeof v === "boolean" || (typeof v === "number" && Number.isSafeInteger(v)) ? v : String(v);

/** The fields a revert changes: the row as the change left it (now) → as it was before the change. */
function revertChanges(now: Record<string, unknown>, back: Record<string, unknown>): NonNullable<Reversal["changes"]> {
  const out: NonNullable<Reversal["changes"]> = [];
  for (const [field, after] of Object.entries(back)) {
    if (HIDDEN_COLUMN.test(field) || norm(after) === norm(now[field])) continue;
    out.push({ field, before: shown(now[field]), after: shown(after) });
  }
  return out;
}

export const rowId = (c: { key: Record<string, unknown> }): string => Object.values(c.key).map(String).join("#");

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

/** A row's place in the change: its key, the state before the change first touched it, and after its last touch. */
interface NetChange {
  table: string;
  rowKey: string;
  key: Record<string, unknown>;
  first: RowChange;
  last: RowChange;
}

/** The rows the change touched, once each, in the order it first touched them. */
function netRows(changes: readonly RowChange[]): NetChange[] {
  const rows = new Map<string, NetChange>();
  for (const c of changes) {
    const k = `${c.table} ${c.rowKey}`;
    const found = rows.get(k);
    if (found) found.last = c;
    else rows.set(k, { table: c.table, rowKey: c.rowKey, key: c.key, first: c, last: c });
  }
  return [...rows.values()];
}

// Rows per statement: on SQLite each statement (its triggers included) runs without a turn of the loop, so
// it is kept to a few milliseconds (src/db/pace.ts turns between statements; issue 51).
const CHUNK = 50;
const chunks = <T>(xs: readonly T[], size = CHUNK): T[][] => Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));
const keyString = (columns: readonly string[], row: Record<string, unknown>) => JSON.stringify(columns.map((c) => norm(row[c])));

/** Restricts `q` to the rows with these keys (one column: IN; several: row values IN, both engines). */
function whereKeys(q: Knex.QueryBuilder, columns: readonly string[], rows: readonly NetChange[]): Knex.QueryBuilder {
  if (columns.length === 1)
    return q.whereIn(
      columns[0]!,
      rows.map((r) => r.key[columns[0]!] as string),
    );
  return q.whereIn(
    columns as string[],
    rows.map((r) => columns.map((c) => r.key[c] as string)),
  );
}

/**
 * Rows grouped by table, in first-touched order within each table. Pushed in place: copying the table's
 * list per row made undo quadratic in its rows (issue 41: 30,000 rows took 157 s).
 */
function byTable(rows: readonly NetChange[]): Map<string, NetChange[]> {
  const out = new Map<string, NetChange[]>();
  for (const r of rows) {
    const ofTable = out.get(r.table);
    if (ofTable) ofTable.push(r);
    else out.set(r.table, [r]);
  }
  return out;
}

/** The rows as they are now, read a few hundred keys per statement: key string → row. */
async function currentRows(db: Knex, table: string, rows: readonly NetChange[]): Promise<Map<string, Record<string, unknown>>> {
  const columns = Object.keys(rows[0]!.key);
  const out = new Map<string, Record<string, unknown>>();
  for (const chunk of chunks(rows)) for (const row of await whereKeys(db(table), columns, chunk)) out.set(keyString(columns, row), row);
  return out;
}

/** Rows that belong to a transaction (or an import's remembered mapping): counted with it, not as records of their own. */
const DEPENDENT_TABLES = new Set(["transaction_tags", "transaction_parts", "import_keys", "import_mappings"]);

/** The records an undo writes (its rows, less those that belong to a transaction), for the cap. */
function recordCount(rows: readonly { table: string }[]): number {
  let n = 0;
  for (const r of rows) if (!DEPENDENT_TABLES.has(r.table)) n++;
  return n;
}

/** The change as it stands: its rows, or why it cannot be undone (no rows, or a row changed since). */
/**
 * Tables whose rows an undo restores only while they are as the change left them, and otherwise leaves:
 * a CSV mapping remembered per wallet is shared by the wallet's later imports, so undoing an earlier
 * import keeps the mapping a later one saved, and is not refused for it
 * (docs/decisions.md#mapping-remembered-per-wallet).
 */
const RESTORED_ONLY_IF_UNCHANGED = new Set(["import_mappings"]);

async function checkUndoable(db: Knex, userId: string, auditId: string, bindPreview?: BindPreview): Promise<{ changes: RowChange[]; rows: NetChange[] }> {
  const changes = await rowChangesOf(db, userId, auditId);
  if (changes.length === 0) {
    // Said as it is (issue 47): "before undo existed" only for a change that was.
    const why =
      (await missingRowsCause(db, userId, auditId)) === "before_capture"
        ? "it was recorded before undo existed on this server"
        : "it changed no rows, or it was committed while the server's row capture was off (a fault of earlier versions: a CLI command run beside a live SQLite server switched it off). The operator's fix: `finance-mcp migrate` or a restart makes capture whole again (GET /readyz shows \"capture\"); writes are refused while it is not";
    throw invalidParams(
      "audit_id",
      "a change recorded with its rows",
      `audit_id: change ${auditId} has no recorded rows to restore: ${why}. Nothing was changed. Undo it by hand with the tool that made it.`,
    );
  }
  const all = netRows(changes);
  // The cap every bulk write shares (info.x-limits.bulk_write_rows), counted in records as the writes
  // count them: a transaction's tags, parts and import keys go with it. Only a change made before the cap
  // existed can be larger.
  const records = recordCount(all);
  if (records > limits.bulkWriteRows)
    throw invalidParams(
      "audit_id",
      `a change of at most ${limits.bulkWriteRows} records`,
      `audit_id: change ${auditId} changed ${records} records; one undo changes at most ${limits.bulkWriteRows}. Nothing was changed. Reverse it by hand in parts (update_transactions, delete_transaction).`,
    );
  // The rows as they are now. The preview is bound to them (src/writes/preview.ts): a commit passing its
  // preview_id is refused with stale_preview when one changed since, before any other check.
  const current = new Map<string, Map<string, Record<string, unknown>>>();
  for (const [table, ofTable] of byTable(all)) current.set(table, await currentRows(db, table, ofTable));
  const nowOf = (r: NetChange) => current.get(r.table)!.get(keyString(Object.keys(r.key), r.key));
  const left = new Set(all.filter((r) => RESTORED_ONLY_IF_UNCHANGED.has(r.table) && !sameRow(nowOf(r), r.last.after)).map((r) => `${r.table} ${r.rowKey}`));
  const rows = all.filter((r) => !left.has(`${r.table} ${r.rowKey}`));
  const kept = left.size === 0 ? changes : changes.filter((c) => !left.has(`${c.table} ${c.rowKey}`));
  bindPreview?.({
    noun: "rows",
    rows: rows.map((r) => {
      const now = nowOf(r) ?? null;
      return { id: rowId(r), content: { table: r.table, now }, updatedAt: now?.updated_at == null ? null : String(now.updated_at) };
    }),
  });
  await refuseIfUndoneOrTouchedSince(db, userId, auditId, rows);
  // Each row must still be exactly what this change left (its last state in the change).
  for (const [table, ofTable] of byTable(rows)) {
    const columns = Object.keys(ofTable[0]!.key);
    const now = current.get(table)!;
    for (const [i, r] of ofTable.entries()) {
      if (i % 256 === 255) await breathe();
      if (sameRow(now.get(keyString(columns, r.key)), r.last.after)) continue;
      const later = await laterChangeOf(db, userId, table, r.rowKey, auditId);
      throw new AppError(
        "conflict",
        later
          ? `audit_id: ${rowId(r)} was changed again by change ${later} after change ${auditId}; undo change ${later} first (list_changes audit_id ${later} shows it), or change the row by hand.`
          : `audit_id: ${rowId(r)} has changed since change ${auditId} by a write the history does not show; undoing would overwrite it. Change it by hand.`,
        { field: "audit_id", ...(later ? { existing_id: later } : {}) },
      );
    }
  }
  await refuseIfStillReferenced(db, userId, auditId, kept);
  return { changes: kept, rows };
}

/** The user's undos after `auditId`: the change each undid → the undo (one undo per change, below). */
async function undosSince(db: Knex, userId: string, auditId: string): Promise<Map<string, string>> {
  const undos = await db("audit_log").where({ user_id: userId, action: "undo" }).andWhere("id", ">", auditId).orderBy("id").select("id", "after_json");
  const out = new Map<string, string>();
  for (const u of undos) {
    const undid = (JSON.parse(String(u.after_json ?? "null")) as { undid?: unknown } | null)?.undid;
    if (typeof undid === "string" && !out.has(undid)) out.set(undid, String(u.id));
  }
  return out;
}

/** Later captured rows read per statement (a few milliseconds each on SQLite). */
const LATER_PAGE = 500;

/**
 * The captured rows of the user's changes after `auditId`, a page at a time, in (audit_id, id) order or its
 * reverse: the order of the index (user_id, audit_id), so each page is a range of it. Paged by id alone,
 * every page read all later rows and sorted them (issue 51: 30–110 ms a page beside a 5,000-row import's
 * later edits and their undos).
 */
async function* laterRows(
  db: Knex,
  userId: string,
  auditId: string,
  order: "asc" | "desc",
  columns: readonly string[],
): AsyncGenerator<Record<string, unknown>[]> {
  let last: { auditId: string; id: string } | undefined;
  for (;;) {
    const q = db("audit_rows").where({ user_id: userId }).andWhere("audit_id", ">", auditId);
    if (last !== undefined) {
      // The row value keeps the index order; the plain bound lets SQLite start the range there.
      q.andWhere("audit_id", order === "asc" ? ">=" : "<=", last.auditId);
      q.whereRaw(`(audit_id, id) ${order === "asc" ? ">" : "<"} (CAST(? AS BIGINT), CAST(? AS BIGINT))`, [last.auditId, last.id]);
    }
    const page = (await q
      .orderBy([
        { column: "audit_id", order },
        { column: "id", order },
      ])
      .limit(LATER_PAGE)
      .select("id", "audit_id", ...columns)) as Record<string, unknown>[];
    if (page.length === 0) return;
    yield page;
    if (page.length < LATER_PAGE) return;
    last = { auditId: String(page[page.length - 1]!.audit_id), id: String(page[page.length - 1]!.id) };
    await breathe();
  }
}

/**
 * Undo knows what was undone (issue 41): a change is undone once; undoing its undo is the way back. And a
 * change is undone only while no later change that still stands touched its rows, even one that left a
 * row as this change left it (a delete after an undo that deleted: the row's state alone would let the
 * old undo be undone again over the delete). A later change and the undo that took it back cancel out:
 * undoing a bulk edit, then the import under it, stays possible. Both refusals name the change to undo.
 */
async function refuseIfUndoneOrTouchedSince(db: Knex, userId: string, auditId: string, rows: readonly NetChange[]): Promise<void> {
  const undoneBy = await undosSince(db, userId, auditId);
  const undo = undoneBy.get(auditId);
  if (undo !== undefined) {
    // The end of the chain: the undo, or the undo of the undo… that stands now.
    let last = undo;
    while (undoneBy.has(last)) last = undoneBy.get(last)!;
    throw new AppError(
      "conflict",
      last === undo
        ? `audit_id: change ${auditId} was already undone by change ${undo}; a change is undone once. To bring it back, undo change ${undo}.`
        : `audit_id: change ${auditId} was undone by change ${undo}, and that undo was taken back since (change ${last} stands now); a change is undone once. Undo change ${last} instead.`,
      { field: "audit_id", existing_id: last },
    );
  }
  // Later changes and their undos, paired off oldest first: what remains still stands.
  const cancelled = new Set<string>();
  for (const [undid, by] of [...undoneBy.entries()].sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : 1))) {
    if (BigInt(undid) <= BigInt(auditId) || cancelled.has(undid) || cancelled.has(by)) continue;
    cancelled.add(undid);
    cancelled.add(by);
  }
  const own = new Set(rows.map((r) => `${r.table} ${r.rowKey}`));
  let newest: { auditId: string; table: string; key: Record<string, unknown> } | undefined;
  // One pass over the later captured rows (keys only), a page at a time.
  for await (const page of laterRows(db, userId, auditId, "asc", ["table_name", "row_key"])) {
    for (const m of page) {
      const later = String(m.audit_id);
      if (cancelled.has(later) || !own.has(`${String(m.table_name)} ${String(m.row_key)}`)) continue;
      if (!newest || BigInt(later) > BigInt(newest.auditId))
        newest = { auditId: later, table: String(m.table_name), key: JSON.parse(String(m.row_key)) as Record<string, unknown> };
    }
  }
  if (newest)
    throw new AppError(
      "conflict",
      `audit_id: ${rowId(newest)} was changed again by change ${newest.auditId} after change ${auditId}; undo change ${newest.auditId} first (list_changes audit_id ${newest.auditId} shows it), or change the row by hand.`,
      { field: "audit_id", existing_id: newest.auditId },
    );
}

/**
 * A row the undo would delete (the change created it) that a later change made another row refer to
 * (a goal or bill kept in a new wallet, a budget over it: references a foreign key does not guard) is
 * refused like a changed row, naming that later change. Read from the later changes' captured rows, then
 * confirmed on the referring row as it is now (a reference removed since does not count).
 */
async function refuseIfStillReferenced(db: Knex, userId: string, auditId: string, changes: readonly RowChange[]): Promise<void> {
  const created = new Set(changes.filter((c) => c.before === null && typeof c.key.id === "string").map((c) => String(c.key.id)));
  if (created.size === 0) return;
  const own = new Set(changes.map((c) => `${c.table} ${c.rowKey}`));
  // One pass over the later changes' rows, newest first, a page at a time (an import creates thousands of
  // rows: a query per created id would read the later rows once per id), collecting the rows that named a
  // created row; then those rows as they are now, a few hundred keys per statement.
  const candidates = new Map<string, Map<string, { key: Record<string, unknown>; auditId: string; mentioned: string }>>();
  for await (const page of laterRows(db, userId, auditId, "desc", ["table_name", "row_key", "after_json"])) {
    for (const m of page) {
      const table = String(m.table_name);
      const rowKey = String(m.row_key);
      if (m.after_json == null || own.has(`${table} ${rowKey}`) || candidates.get(table)?.has(rowKey)) continue;
      const mentioned = [...String(m.after_json).matchAll(/"([a-z]{3}_[A-Za-z0-9]+)"/g)].map((x) => x[1]!).find((id) => created.has(id));
      if (mentioned === undefined) continue;
      const ofTable = candidates.get(table) ?? new Map();
      ofTable.set(rowKey, { key: JSON.parse(rowKey) as Record<string, unknown>, auditId: String(m.audit_id), mentioned });
      candidates.set(table, ofTable);
    }
  }
  let newest: { table: string; key: Record<string, unknown>; auditId: string; mentioned: string } | undefined;
  for (const [table, ofTable] of candidates) {
    const rows = [...ofTable.entries()].map(([rowKey, c]) => ({ table, rowKey, key: c.key, first: undefined as never, last: undefined as never }));
    const columns = Object.keys(rows[0]!.key);
    const now = await currentRows(db, table, rows);
    for (const c of ofTable.values()) {
      const row = now.get(keyString(columns, c.key));
      if (!row || !Object.values(row).some((v) => typeof v === "string" && v.includes(c.mentioned))) continue;
      if (!newest || BigInt(c.auditId) > BigInt(newest.auditId)) newest = { table, ...c };
    }
  }
  if (newest)
    throw new AppError(
      "conflict",
      `audit_id: ${newest.mentioned} is used by ${rowId(newest)} since change ${newest.auditId}; undo change ${newest.auditId} first, or change that record by hand.`,
      { field: "audit_id", existing_id: newest.auditId },
    );
}

/**
 * Reverses the change (inside the caller's transaction) and answers what was done to each row. Each row
 * goes straight back to its state before the change (the change's intermediate states need no undoing),
 * set-based: rows the change deleted are inserted again (parent tables first), rows it updated get their
 * before-values (rows with the same values in one statement), rows it inserted are deleted (child tables
 * first). A transaction's tags_key is left to the tag rows' triggers, which derive it.
 */
export async function undoChange(db: Knex, userId: string, auditId: string, bindPreview?: BindPreview): Promise<Reversal[]> {
  const { changes, rows } = await checkUndoable(db, userId, auditId, bindPreview);
  const order = (await capturedTables()).map((t) => t.table);
  const rank = (table: string) => (order.includes(table) ? order.indexOf(table) : order.length);
  const tables = [...byTable(rows).entries()].sort(([a], [b]) => rank(a) - rank(b));
  try {
    for (const [table, ofTable] of tables) {
      const restored = ofTable.filter((r) => r.first.before !== null && r.last.after === null).map((r) => r.first.before!);
      for (const chunk of chunks(restored, 50)) await db(table).insert(chunk);
    }
    for (const [table, ofTable] of tables) {
      const columns = Object.keys(ofTable[0]!.key);
      const groups = new Map<string, { patch: Record<string, unknown>; rows: NetChange[] }>();
      for (const [i, r] of ofTable.entries()) {
        if (i % 256 === 255) await breathe();
        if (r.first.before === null || r.last.after === null) continue;
        const patch: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(r.first.before))
          if (norm(v) !== norm(r.last.after[k]) && !(table === "transactions" && k === "tags_key")) patch[k] = v;
        if (Object.keys(patch).length === 0) continue;
        const sig = JSON.stringify(Object.entries(patch).map(([k, v]) => [k, norm(v)]));
        const g = groups.get(sig) ?? { patch, rows: [] };
        g.rows.push(r);
        groups.set(sig, g);
      }
      for (const { patch, rows: ofGroup } of groups.values()) for (const chunk of chunks(ofGroup)) await whereKeys(db(table), columns, chunk).update(patch);
    }
    for (const [table, ofTable] of [...tables].reverse()) {
      const columns = Object.keys(ofTable[0]!.key);
      const made = ofTable.filter((r) => r.first.before === null && r.last.after !== null);
      for (const chunk of chunks(made)) await whereKeys(db(table), columns, chunk).delete();
    }
  } catch (err) {
    if (isUniqueViolation(err))
      throw conflict(
        "audit_id",
        `audit_id: restoring change ${auditId} would clash with a record made since (a name or external id now taken). Rename or delete that one first.`,
      );
    const code = (err as { code?: string }).code;
    if (code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY")
      throw conflict(
        "audit_id",
        `audit_id: records made since change ${auditId} use what it would remove (transactions in a wallet, contributions to a goal); remove those first.`,
      );
    throw err;
  }
  return await netEffect(changes);
}

/** One entry per row, in the order the change first touched them: what the undo does to it overall. */
async function netEffect(changes: readonly RowChange[]): Promise<Reversal[]> {
  const rows = new Map<string, { first: RowChange; last: RowChange }>();
  for (const [i, c] of changes.entries()) {
    if (i % 1024 === 1023) await breathe();
    const k = `${c.table} ${c.rowKey}`;
    const found = rows.get(k);
    if (found) found.last = c;
    else rows.set(k, { first: c, last: c });
  }
  const out: Reversal[] = [];
  let n = 0;
  for (const { first, last } of rows.values()) {
    if (++n % 256 === 0) await breathe();
    if (first.before === null && last.after === null) continue; // made and removed by the change itself
    const action = first.before === null ? "delete" : last.after === null ? "restore" : "revert";
    const changes = action === "revert" ? revertChanges(last.after!, first.before!) : [];
    out.push({ id: rowId(first), table: first.table, action, ...(changes.length > 0 ? { changes } : {}) });
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
  bindPreview?: BindPreview,
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
  return { entry, rows: await undoChange(db, caller.userId, entry.id, bindPreview) };
}
