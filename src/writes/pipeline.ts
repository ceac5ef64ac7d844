/**
 * The one write pipeline of all write tools:
 *   dry run → run the handler in a transaction and roll it back (so it checks exactly what a real call
 *             checks), claim nothing, audit nothing;
 *   commit  → in one transaction: take the user's write lock, look the key up (replay / refuse), apply
 *             the change, write the audit row, store the response, commit; then publish the event.
 * A failure anywhere rolls everything back, the key included.
 */
import type { Knex } from "knex";
import { dialect } from "../db/knex.js";
import { AppError } from "../errors.js";
import type { ChangeBus } from "../events/bus.js";
import { NOTIFY_CHANNEL } from "../events/bus.js";
import type { ToolContext } from "../tools/context.js";
import { insertAuditRow, readAuditEntry } from "./audit.js";
import { findKey, keyInUse, replayOrRefuse, requestHash, storeKey } from "./idempotency.js";
import type { WriteContext, WriteOutcome } from "./types.js";

export type WriteHandler = (params: never, ctx: WriteContext) => Promise<WriteOutcome<Record<string, unknown>>>;

class DryRunRollback extends Error {}

/** Keys being written by this process right now: a duplicate gets idempotency_key_in_use at once. */
const inFlight = new Set<string>();

async function lockUser(trx: Knex.Transaction, userId: string, key: string): Promise<void> {
  if (dialect(trx) !== "postgres") return; // SQLite has one writer: its transactions are already serial
  // The key's lock refuses a concurrent duplicate on another process; the user's lock then orders the
  // user's writes, so audit ids commit in increasing order and SSE replay by id never skips one.
  const got = await trx.raw("SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0)) AS ok", [`idem:${userId}:${key}`]);
  if (!got.rows[0].ok) throw keyInUse();
  await trx.raw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [`user:${userId}`]);
}

export interface WritePipelineDeps {
  bus: ChangeBus;
}

export function createWritePipeline(deps: WritePipelineDeps) {
  return async function runWrite(
    tool: string,
    params: Record<string, unknown>,
    ctx: ToolContext,
    handler: WriteHandler,
  ): Promise<Record<string, unknown>> {
    const key = String(params.idempotency_key);
    const userId = ctx.caller.userId;

    if (params.dry_run === true) {
      let preview: Record<string, unknown> | undefined;
      try {
        await ctx.db.transaction(async (trx) => {
          const outcome = await handler(params as never, { ...ctx, db: trx, dryRun: true });
          preview = { ...outcome.result, status: "dry_run", audit_id: null };
          throw new DryRunRollback();
        });
      } catch (err) {
        if (!(err instanceof DryRunRollback)) throw err;
      }
      return preview!;
    }

    const hash = requestHash(tool, params);
    const flightKey = `${userId}:${key}`;
    if (inFlight.has(flightKey)) throw keyInUse();
    inFlight.add(flightKey);
    try {
      let auditId: string | undefined;
      const response = await ctx.db.transaction(async (trx) => {
        await lockUser(trx, userId, key);
        const stored = await findKey(trx, userId, key);
        if (stored) return replayOrRefuse(stored, tool, hash);

        const at = ctx.now();
        const outcome = await handler(params as never, { ...ctx, db: trx, dryRun: false });
        auditId = await insertAuditRow(trx, {
          userId,
          tokenId: ctx.caller.tokenId,
          tool,
          idempotencyKey: key,
          requestId: ctx.requestId,
          at: at.toISOString(),
          change: outcome.change,
        });
        const result = { ...outcome.result, status: "committed", audit_id: auditId };
        await storeKey(trx, { userId, key, tool, hash, response: result, at, retentionHours: ctx.config.idempotencyRetentionHours });
        if (dialect(trx) === "postgres") await trx.raw("SELECT pg_notify(?, ?)", [NOTIFY_CHANNEL, auditId]);
        return result;
      });
      if (auditId) {
        const entry = await readAuditEntry(ctx.db, auditId);
        if (entry) deps.bus.published(entry);
      }
      return response;
    } catch (err) {
      if (isUniqueViolation(err)) {
        // Another process claimed the same key between our lookup and insert (SQLite, two processes).
        const stored = await findKey(ctx.db, userId, key);
        if (stored) return replayOrRefuse(stored, tool, hash);
      }
      throw err;
    } finally {
      inFlight.delete(flightKey);
    }
  };
}

function isUniqueViolation(err: unknown): boolean {
  if (err instanceof AppError) return false;
  const e = err as { code?: string; message?: string };
  return e?.code === "23505" || (typeof e?.message === "string" && e.message.includes("UNIQUE constraint failed: idempotency_keys"));
}
