/**
 * What an update or a delete changes, as its answer states it: `changes` lists each field that changes
 * with its value before and after, from the same before/after snapshots the audit row keeps, so a dry run
 * shows exactly what the call would change. Timestamps are left out (every write moves updated_at), and so
 * is what a snapshot keeps beside the record (IGNORED). A transaction's snapshots are {transaction,
 * counterpart}: the transaction's own fields are compared (the other leg mirrors it). A delete names the
 * resource that goes: [{field: <resource_type>, before: id, after: null}] (the answer carries the deleted
 * resource itself beside it). Each value is of a kind the spec's ChangeValue names.
 */

/** What a write did, as its audit row keeps it (src/writes/types.ts AuditChange has this shape). */
export interface Snapshots {
  action: string;
  resourceType: string;
  resourceId: string;
  before: unknown;
  after: unknown;
}

export type Changes = { field: string; before: unknown; after: unknown }[];

/**
 * Not fields of the record: its timestamps, and what a rule's audit snapshot keeps beside the rule
 * (save_rule's applied_changes, the past transactions it changed; the answer lists them in `applied`).
 */
const IGNORED = new Set(["created_at", "updated_at", "applied_changes"]);

function fieldsOf(snapshot: unknown): Record<string, unknown> {
  if (snapshot === null || typeof snapshot !== "object") return {};
  const s = snapshot as Record<string, unknown>;
  if ("transaction" in s && "counterpart" in s) return fieldsOf(s.transaction);
  return s;
}

/** Stable JSON for comparing snapshot values (objects compare by content, whatever their key order). */
function same(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown =>
    v === null || typeof v !== "object"
      ? v
      : Array.isArray(v)
        ? v.map(canon)
        : Object.fromEntries(
            Object.entries(v as object)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, x]) => [k, canon(x)]),
          );
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

export function changesOf(change: Snapshots): Changes | undefined {
  if (change.action === "delete") return [{ field: change.resourceType, before: change.resourceId, after: null }];
  if (change.action !== "update") return undefined;
  const before = fieldsOf(change.before);
  const after = fieldsOf(change.after);
  const out: Changes = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (IGNORED.has(field)) continue;
    const b = before[field] ?? null;
    const a = after[field] ?? null;
    if (!same(b, a)) out.push({ field, before: b, after: a });
  }
  return out;
}
