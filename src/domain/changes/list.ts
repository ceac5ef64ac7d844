/**
 * list_changes: the caller's committed writes from the audit log, newest first, for "did that go
 * through?" (by idempotency key or audit id) and "what did you change?" (since). Only areas the token
 * may read: the scope check of the tool itself is meta:whoami, which reads no finance data, so each
 * entry's area is checked here against read:<area>. The one-line summary names changed fields, never their
 * values: it is what the model repeats to the person, and the values are one read away.
 */
import type { Knex } from "knex";
import type { ChangeEntry, ListChangesParams } from "../../../generated/types.js";
import { findAuditEntries, type AuditEntry } from "../../audit/log.js";
import { changesOf } from "./diff.js";
import { decodeCursor, encodeCursor, pageSize, queryFingerprint, splitPage } from "../paging.js";

/** The area (scope suffix) of each audited resource type. */
const AREA_OF: Record<string, string> = {
  wallet: "wallets",
  transaction: "transactions",
  budget: "budgets",
  goal: "goals",
  bill_reminder: "bills",
  exchange_rate: "wallets",
};

const VERB: Record<string, string> = { create: "created", update: "updated", delete: "deleted", add_funds: "added funds to" };

interface Position extends Record<string, unknown> {
  i: string;
}
const isPosition = (c: Record<string, unknown>): c is Position => typeof c.i === "string" && /^[1-9][0-9]{0,18}$/.test(c.i);

/** Every resource id a write touched: its own, and those of the resources its snapshots hold (a transfer's other leg, a goal's transaction). */
function idsOf(e: AuditEntry): string[] {
  const ids = new Set([e.resource_id]);
  for (const snapshot of [e.before, e.after]) {
    if (snapshot === null || typeof snapshot !== "object") continue;
    for (const v of Object.values(snapshot as Record<string, unknown>)) {
      const id = v !== null && typeof v === "object" ? (v as { id?: unknown }).id : undefined;
      if (typeof id === "string" && /^[a-z]{3}_[A-Za-z0-9]+$/.test(id)) ids.add(id);
    }
  }
  return [...ids];
}

function summaryOf(e: AuditEntry): string {
  const what = `${VERB[e.action] ?? e.action} ${e.resource_type.replace("_", " ")} ${e.resource_id}`;
  if (e.action !== "update") return what;
  const fields = (changesOf({ action: e.action, resourceType: e.resource_type, resourceId: e.resource_id, before: e.before, after: e.after }) ?? []).map(
    (c) => c.field,
  );
  return fields.length > 0 ? `${what}: ${fields.join(", ")}` : `${what} (no field changed)`;
}

export async function listChanges(
  db: Knex,
  userId: string,
  scopes: ReadonlySet<string>,
  p: ListChangesParams,
): Promise<{ changes: ChangeEntry[]; next_cursor: string | null }> {
  const size = pageSize(p.limit);
  const since = p.since !== undefined ? new Date(p.since).toISOString() : undefined;
  const { cursor: _c, limit: _l, ...filters } = p;
  const fingerprint = queryFingerprint({ list: "changes", ...filters });
  const after = p.cursor !== undefined ? decodeCursor(p.cursor, fingerprint, isPosition) : undefined;
  const resourceTypes = Object.keys(AREA_OF).filter((type) => scopes.has(`read:${AREA_OF[type]}`));
  if (resourceTypes.length === 0) return { changes: [], next_cursor: null };

  const entries = await findAuditEntries(
    db,
    userId,
    { resourceTypes, idempotencyKey: p.idempotency_key, auditId: p.audit_id, tool: p.tool, since, beforeId: after?.i },
    size + 1,
  );
  const { page, hasMore, last } = splitPage(entries, size);
  return {
    changes: page.map((e) => ({ audit_id: e.id, at: e.created_at, tool: e.tool, idempotency_key: e.idempotency_key, ids: idsOf(e), summary: summaryOf(e) })),
    next_cursor: hasMore && last ? encodeCursor(fingerprint, { i: last.id }) : null,
  };
}
