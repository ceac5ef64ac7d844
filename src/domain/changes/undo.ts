/**
 * undo_change: takes back one of the caller's changes from the audit log (the reversal itself is
 * src/audit/undo.ts, over the rows each write captured) and says what it reversed.
 */
import type { UndoChangeParams } from "../../../generated/types.js";
import type { DomainContext, ToolContext } from "../../context.js";
import { undoOwnChange } from "../../audit/undo.js";

export async function undoChange(ctx: ToolContext & Pick<DomainContext, "bindPreview">, params: UndoChangeParams) {
  const { entry, rows } = await undoOwnChange(ctx.db, ctx.caller, params.audit_id, ctx.bindPreview);
  return {
    result: { undone: { audit_id: entry.id, tool: entry.tool }, rows, warnings: [] },
    change: { action: "undo" as const, resourceType: entry.resource_type as never, resourceId: entry.resource_id, before: null, after: { undid: entry.id } },
  };
}
