import type { Knex } from "knex";
import type { ToolContext } from "../tools/context.js";

/** A write handler runs inside the pipeline's transaction: every query must use ctx.db. */
export interface WriteContext extends ToolContext {
  readonly db: Knex.Transaction;
  /** True when the pipeline will roll the transaction back afterwards. Handlers rarely need it. */
  readonly dryRun: boolean;
}

/** The one audit row a committed write produces. before/after are resource snapshots, never secrets. */
export interface AuditChange {
  action: "create" | "update" | "delete" | "add_funds";
  resourceType: "wallet" | "transaction" | "budget" | "goal" | "bill_reminder";
  resourceId: string;
  before: unknown;
  after: unknown;
}

/** What a write handler returns: its result without status/audit_id (the pipeline adds them) and the change. */
export interface WriteOutcome<R> {
  result: Omit<R, "status" | "audit_id">;
  change: AuditChange;
}
