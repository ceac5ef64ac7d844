/**
 * A committed write's bookkeeping around its handler: what it opens (the key's and the user's locks, the
 * row capture switched on) and what it closes with (the audit row, the captured rows linked to it, the
 * idempotency key claimed with the answer to replay, the change event). On Postgres each is one statement,
 * so a write pays two round trips for all of it beside its own; on SQLite, in the process, each is a
 * few plain statements (docs/decisions.md#write-bookkeeping-in-two-statements).
 */
import type { Knex } from "knex";
import { writesAreSerial } from "../db/engine.js";
import { auditEntryOf, auditRowOf, writeAuditEntry, type AuditEntry, type AuditWrite } from "../audit/log.js";
import { CAPTURE_AUDIT_SETTING, CAPTURE_SETTING, finishCapture, startCapture } from "../audit/rows.js";
import { assertPgCaptureCount, capturedTableNames, PG_CAPTURE_COUNT_SQL } from "../db/row-capture.js";
import { NOTIFY_CHANNEL, notifyPayloadSql } from "../events/bus.js";
import { keyInUse, keyRowOf, storeKey, type KeyClaim } from "./idempotency.js";

/**
 * Takes the key's lock (a concurrent duplicate on another process is refused with
 * idempotency_key_in_use), then the user's lock, which orders the user's writes so that audit ids commit
 * in increasing order and SSE replay by id never skips one; then switches the row capture on. On Postgres
 * the audit row's id is drawn here, under the user's lock (so the order holds), and the capture triggers
 * write it into every row they record: each captured row is written once, never updated
 * (migration 20261128120000, docs/decisions.md#audit-id-at-capture). Answers that id (SQLite: none; the
 * audit row's insert makes it). Both engines check that capture is whole inside the transaction first
 * (throws RowCaptureMissing, and the write is rolled back: docs/decisions.md#capture-checked-in-the-write);
 * on Postgres the check is a sub-select of the same statement.
 */
export async function openWrite(trx: Knex.Transaction, userId: string, key: string): Promise<string | undefined> {
  if (writesAreSerial(trx)) {
    await startCapture(trx, userId); // SQLite has one writer: its transactions are already serial
    return undefined;
  }
  // The user's lock, the id and the settings sit in a sub-select that Postgres runs only when the key's
  // lock was taken (an InitPlan is evaluated at its first use), after the lock and in this order.
  const got = await trx.raw(
    `SELECT CASE WHEN pg_try_advisory_xact_lock(hashtextextended(?, 0))
       THEN (SELECT set_config('${CAPTURE_SETTING}', ?, true) || ' ' || set_config('${CAPTURE_AUDIT_SETTING}', nextval(pg_get_serial_sequence('audit_log', 'id'))::text, true)
               FROM pg_advisory_xact_lock(hashtextextended(?, 0)))
       END AS opened, ${PG_CAPTURE_COUNT_SQL} AS captured`,
    [`idem:${userId}:${key}`, userId, `user:${userId}`, await capturedTableNames()],
  );
  const opened = got.rows[0].opened as string | null;
  if (opened === null) throw keyInUse();
  await assertPgCaptureCount(Number(got.rows[0].captured));
  return opened.slice(opened.lastIndexOf(" ") + 1);
}

/** What closeWrite made: the audit entry as reading it back would give it, or null when the key was stored already. */
export type ClosedWrite = { entry: AuditEntry; claimed: true } | { entry: null; claimed: false };

/**
 * Writes the audit row (with the id openWrite drew, on Postgres; SQLite links the captured rows to it
 * here), claims the key with the answer (`result` with the
 * audit id added as `audit_id`, last) and sends the change event on commit. Not claimed: the key was
 * stored already, and the caller rolls everything back.
 */
export async function closeWrite(
  trx: Knex.Transaction,
  audit: AuditWrite,
  claim: KeyClaim,
  result: Record<string, unknown>,
  auditId?: string,
): Promise<ClosedWrite> {
  if (writesAreSerial(trx)) {
    const entry = await writeAuditEntry(trx, audit);
    await finishCapture(trx, audit.userId, entry.id);
    const claimed = await storeKey(trx, { ...claim, response: { ...result, audit_id: entry.id } });
    return claimed ? { entry, claimed } : { entry: null, claimed };
  }
  // The id openWrite drew, which the captured rows already carry.
  const row = auditId === undefined ? auditRowOf(audit) : { id: auditId, ...auditRowOf(audit) };
  const insertAudit = trx("audit_log").insert(row).returning("id").toSQL();
  // The stored answer is the JSON text of `result` and its audit id, which only the insert above knows:
  // the text is split where the id goes (audit_id is the last key, so the marker's last occurrence) and
  // joined around it in SQL, so it is byte for byte what JSON.stringify of the whole answer gives.
  const marker = JSON.stringify("\u0000audit_id\u0000");
  const text = JSON.stringify({ ...result, audit_id: JSON.parse(marker) as string });
  const cut = text.lastIndexOf(marker);
  const [head, tail] = [text.slice(0, cut), text.slice(cut + marker.length)];
  const key = keyRowOf(claim);
  const got = await trx.raw(
    `WITH a AS (${insertAudit.sql}),
       k AS (INSERT INTO idempotency_keys (user_id, key, tool, request_hash, response_json, created_at, expires_at)
             SELECT ?, ?, ?, ?, ? || to_json(a.id::text)::text || ?, ?, ? FROM a
             ON CONFLICT (user_id, key) DO NOTHING RETURNING key)
     SELECT a.id::text AS id, (SELECT count(*) FROM k)::int AS claimed, pg_notify(?, ${notifyPayloadSql("a.id")}) FROM a`,
    [...insertAudit.bindings, key.user_id, key.key, key.tool, key.request_hash, head, tail, key.created_at, key.expires_at, NOTIFY_CHANNEL, audit.userId],
  );
  const out = got.rows[0] as { id: string; claimed: number };
  // NOTIFY is sent on commit only, so the event of a call rolled back here never leaves.
  if (out.claimed !== 1) return { entry: null, claimed: false };
  return { entry: auditEntryOf({ ...row, id: out.id }), claimed: true };
}
