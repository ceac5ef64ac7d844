import type { Handlers } from "../../../generated/handlers.js";
import { undoChange } from "../../domain/changes/undo.js";

export const undo_change: Handlers["undo_change"] = async (params, ctx) => undoChange(ctx, params);
