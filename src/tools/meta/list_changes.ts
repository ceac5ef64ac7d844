import type { Handlers } from "../../../generated/handlers.js";
import { listChanges } from "../../domain/changes/list.js";

export const list_changes: Handlers["list_changes"] = async (params, ctx) =>
  listChanges(ctx, params);
