/**
 * The one write pipeline of all write tools:
 *   dry run → run the handler in a transaction and roll it back (so it checks exactly what a real call
 *             checks), claim nothing, audit nothing;
 *   commit  → in one transaction: take the key's and the user's locks, apply the change, write the audit
 *             row, claim the key by storing the response, send the event, commit; then publish the event
 *             here (src/writes/bookkeeping.ts: on Postgres one statement before the handler and one after).
 * A failure anywhere rolls everything back, the key included.
 *
 * A key seen before is not looked up first: that lookup was one statement on every write to serve the
 * rare retry. Instead the key's insert (unique on user and key) claims nothing for a key already stored;
 * the whole transaction is then rolled back, and only then is the stored key read to replay or refuse. A retry's
 * handler may also fail on its own (a delete of what the first call deleted): every failure is therefore
 * checked against the stored keys before it is reported, so a retry gets the stored answer whatever its
 * handler did. A new key costs no extra statement; a failing call costs one read.
 */
import { provisionalIds } from "../db/ids.js";
import type { ChangeBus } from "../events/bus.js";
import type { DbWatch } from "../db/watch.js";
import type { ToolContext } from "../context.js";
import type { AuditEntry } from "../audit/log.js";
import { changesOf, type Changes } from "../audit/diff.js";
import { closeWrite, openWrite } from "./bookkeeping.js";
import { findKey, keyInUse, replayOrRefuse, requestHash, type StoredKey } from "./idempotency.js";
import {
  assertFreshPreview,
  assertPreviewCount,
  claimPreview,
  keepDialogPreview,
  previewKey,
  readPreview,
  signPreview,
  type Payload,
  type PreviewBasis,
} from "./preview.js";
import type { AuditChange, WriteContext, WriteOutcome } from "./types.js";
import { RowCaptureMissing } from "../db/row-capture.js";
import { repairRowCapture } from "../db/migrate.js";
import { unavailable, type AppError } from "../errors.js";
import type { Logger } from "../log.js";

/**
 * A write handler; its optional `prepare` does the work that needs no database before the transaction
 * opens, and the handler finds the result in ctx.prepared. On SQLite an open transaction holds the one
 * connection every other call waits for, so seconds of CPU in it (reading a 4,000,000-character statement)
 * would stall everyone however far off the event loop they ran (issue 41, docs/decisions.md#prepare-before-transaction).
 */
export type WriteHandler = ((params: never, ctx: WriteContext) => Promise<WriteOutcome<Record<string, unknown>>>) & {
  /** Gets the call's context for reads outside the transaction (ctx.db is then the pool, not a transaction). */
  prepare?: (params: never, ctx: ToolContext) => Promise<unknown>;
};

class DryRunRollback extends Error {}
/** Rolls back a call whose key turned out to be stored already; the stored key answers it. */
class KeyAlreadyStored extends Error {}

/** Keys being written by this process right now: a duplicate gets idempotency_key_in_use at once. */
const inFlight = new Set<string>();

function storedKeyWarning(stored: StoredKey, tool: string, hash: string): { code: string; message: string } {
  const same = stored.tool === tool && stored.request_hash === hash;
  const auditId = (JSON.parse(stored.response_json) as { audit_id?: unknown }).audit_id;
  return {
    code: "idempotency_key_already_used",
    message: same
      ? `This idempotency_key already committed this very call (audit ${String(auditId)}): with dry_run false it would answer "replayed" with that result and change nothing. Use a new key for a new change.`
      : `This idempotency_key was already used for ${stored.tool === tool ? "other arguments" : `another tool (${stored.tool})`}: with dry_run false this call would be refused (idempotency_key_reused). Use a new key for this change.`,
  };
}

/** `changes` for the answers of updates and deletes (committed and dry run alike); nothing for the others. */
function changesField(change: AuditChange): { changes?: Changes } {
  const changes = changesOf(change);
  return changes === undefined ? {} : { changes };
}

export interface WritePipelineDeps {
  bus: ChangeBus;
  /** Counts the writes waiting for and holding their user's lock (/metrics, the bound's log line). */
  watch?: DbWatch;
  /** Where a write refused for missing capture is told (one line each). */
  log?: Logger;
}

/**
 * A write whose capture was missing was rolled back: one log line, then capture is made whole again if no
 * migration is pending or running (the triggers follow from the live schema), so the retry this refusal
 * asks for is recorded with its rows (docs/decisions.md#capture-checked-in-the-write).
 */
async function captureRefusal(ctx: ToolContext, tool: string, err: RowCaptureMissing, log?: Logger): Promise<AppError> {
  const repair = await repairRowCapture(ctx.db).catch(() => ({ gaps: err.tables, repaired: false }));
  log?.error("write_refused_capture_missing", { tool, request_id: ctx.requestId, missing: err.tables.join(", "), repaired: repair.repaired });
  return unavailable(
    repair.repaired ? 1 : 30,
    "The audit's row capture (what undo_change restores) was missing, so this write was refused and nothing was changed" +
      (repair.repaired
        ? "; it has been made whole again."
        : '; the operator must run `finance-mcp migrate` or restart the server (GET /readyz shows "capture").'),
  );
}

export function createWritePipeline(deps: WritePipelineDeps) {
  /**
   * `shownPreview`: the preview_id of the dry run a confirmation through the client showed the person
   * (src/writes/confirm.ts); the commit is bound to it as to a preview_id it passes, without it entering
   * the call's arguments (a retry with the same key replays).
   */
  return async function runWrite(
    tool: string,
    params: Record<string, unknown>,
    ctx: ToolContext,
    handler: WriteHandler,
    shownPreview?: string,
  ): Promise<Record<string, unknown>> {
    const key = String(params.idempotency_key);
    const userId = ctx.caller.userId;
    const prepared = handler.prepare ? await handler.prepare(params as never, ctx) : undefined;

    if (params.dry_run === true) {
      let preview: Record<string, unknown> | undefined;
      // A bulk write binds its preview to the rows it showed (src/writes/preview.ts); the key is read here,
      // outside the transaction that is rolled back.
      const signing = await previewKey(ctx.db);
      let basis: PreviewBasis | undefined;
      const bindPreview = (b: PreviewBasis) => void (basis = b);
      try {
        await ctx.db.transaction(async (trx) => {
          // New ids read "…_provisional…": the real call mints others, so none of these will ever exist.
          const outcome = await handler(params as never, { ...ctx, db: trx, dryRun: true, ids: provisionalIds, prepared, bindPreview });
          preview = { ...outcome.result, ...changesField(outcome.change), status: "dry_run", audit_id: null };
          if (basis) {
            const id = signPreview(signing, userId, tool, params, basis, ctx.now());
            if (basis.dialogOnly) keepDialogPreview(preview, id);
            else preview.preview_id = id;
          }
          throw new DryRunRollback();
        });
      } catch (err) {
        if (!(err instanceof DryRunRollback)) throw err;
      }
      // A key that already committed: the real call would replay that answer (or refuse other arguments),
      // not make this change. The preview says so; it costs one read, on dry runs only.
      const stored = await findKey(ctx.db, userId, key);
      if (stored) preview!.warnings = [...((preview!.warnings as unknown[]) ?? []), storedKeyWarning(stored, tool, requestHash(tool, params))];
      return preview!;
    }

    const hash = requestHash(tool, params);
    // A commit bound to a preview (the one it passes, the one its confirmation showed): the id is checked
    // now (made here, for this call, not expired; expected_count its count), claimed and the rows checked
    // when the handler names them, inside the transaction and before it writes.
    const previews: Payload[] = [];
    for (const id of [params.preview_id, shownPreview]) {
      if (id === undefined) continue;
      const payload = readPreview(await previewKey(ctx.db), id, userId, tool, params, ctx.now());
      assertPreviewCount(payload, params.expected_count);
      if (!previews.some((p) => p.mac === payload.mac)) previews.push(payload);
    }
    const bindPreview = previews.length === 0 ? undefined : (b: PreviewBasis) => previews.forEach((p) => assertFreshPreview(p, b));
    const flightKey = `${userId}:${key}`;
    if (inFlight.has(flightKey)) throw keyInUse();
    inFlight.add(flightKey);
    try {
      let entry: AuditEntry | undefined;
      // Waiting for the user's lock from the transaction's start, holding it until the transaction ended.
      let lock: ReturnType<DbWatch["lockWait"]> | undefined;
      let response: Record<string, unknown>;
      try {
        response = await ctx.db.transaction(async (trx) => {
          lock = deps.watch?.lockWait();
          const auditId = await openWrite(trx, userId, key);
          lock?.acquired();
          for (const p of previews) await claimPreview(trx, userId, p);
          const at = ctx.now();
          // Every row the handler writes is recorded with the audit row (undo_change reverses them).
          const outcome = await handler(params as never, { ...ctx, db: trx, dryRun: false, prepared, bindPreview });
          const result = { ...outcome.result, ...changesField(outcome.change), status: "committed" };
          const closed = await closeWrite(
            trx,
            { userId, tokenId: ctx.caller.tokenId, tool, idempotencyKey: key, requestId: ctx.requestId, at: at.toISOString(), change: outcome.change },
            { userId, key, tool, hash, at, retentionHours: ctx.config.idempotencyRetentionHours },
            result,
            auditId,
          );
          if (!closed.claimed) throw new KeyAlreadyStored();
          entry = closed.entry;
          return { ...result, audit_id: closed.entry.id };
        });
      } finally {
        lock?.released();
      }
      // The entry is what the transaction wrote, so publishing needs no read after commit.
      if (entry) deps.bus.published(entry);
      return response;
    } catch (err) {
      // The key was used before (this process or another), whatever the handler made of the retry.
      const stored = await findKey(ctx.db, userId, key).catch(() => undefined);
      if (stored) return replayOrRefuse(stored, tool, hash);
      if (err instanceof RowCaptureMissing) throw await captureRefusal(ctx, tool, err, deps.log);
      throw err;
    } finally {
      inFlight.delete(flightKey);
    }
  };
}
