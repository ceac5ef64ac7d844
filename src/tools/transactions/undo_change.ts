import type { Handlers } from "../../../generated/handlers.js";
import { undoOwnChange } from "../../audit/undo.js";

export const undo_change: Handlers["undo_change"] = async (params, ctx) => {
  const { entry, rows } = await undoOwnChange(ctx.db, ctx.caller, params.audit_id);
  return {
    result: { undone: { audit_id: entry.id, tool: entry.tool }, rows, warnings: [] },
    change: { action: "undo", resourceType: entry.resource_type as never, resourceId: entry.resource_id, before: null, after: { undid: entry.id } },
  };
};
