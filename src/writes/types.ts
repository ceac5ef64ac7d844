import type { Knex } from "knex";
import type { AuditChange } from "../audit/log.js";
import type { DomainContext, ToolContext } from "../context.js";

export type { AuditChange };

/** A write handler runs inside the pipeline's transaction: every query must use ctx.db. */
export interface WriteContext extends ToolContext {
  readonly db: Knex.Transaction;
  /** True when the pipeline will roll the transaction back afterwards. Handlers rarely need it. */
  readonly dryRun: boolean;
  /** What the handler's `prepare` made before the transaction opened (WriteHandler in pipeline.ts), if it has one. */
  readonly prepared?: unknown;
  /** Binds a bulk write's preview to the rows it would touch (src/writes/preview.ts). */
  readonly bindPreview?: DomainContext["bindPreview"];
}

/** What a write handler returns: its result without status/audit_id (the pipeline adds them) and the change. */
export interface WriteOutcome<R> {
  result: Omit<R, "status" | "audit_id">;
  change: AuditChange;
}
