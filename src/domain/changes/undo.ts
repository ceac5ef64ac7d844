/**
 * undo_change: takes back one of the caller's changes from the audit log (the reversal itself is
 * src/audit/undo.ts, over the rows each write captured) and says what it reversed.
 */
import type { UndoChangeParams } from "../../../generated/types.js";
import type { DomainContext, ToolContext } from "../../context.js";
import { undoOwnChange } from "../../audit/undo.js";

/** The rows an undo's answer lists when the call does not say (the spec's default of rows_limit). */
const UNDO_ROWS_SHOWN = 20;

export async function undoChange(ctx: ToolContext & Pick<DomainContext, "bindPreview">, params: UndoChangeParams) {
  const { entry, rows } = await undoOwnChange(ctx.db, ctx.caller, params.audit_id, ctx.bindPreview);
  // Summarised past rows_limit as an import preview is: an undo of a 5,000-row bulk edit listed every row
  // (about 2 MB, 465,000 tokens; issue 51). The counts say what the whole undo does.
  const counts = { delete: 0, restore: 0, revert: 0 };
  for (const r of rows) counts[r.action]++;
  return {
    result: { undone: { audit_id: entry.id, tool: entry.tool }, counts, rows: rows.slice(0, params.rows_limit ?? UNDO_ROWS_SHOWN), warnings: [] },
    change: { action: "undo" as const, resourceType: entry.resource_type as never, resourceId: entry.resource_id, before: null, after: { undid: entry.id } },
  };
}
