import type { Handlers } from "../../../generated/handlers.js";
import { listRecurringOf } from "../../domain/recurring/list.js";

export const list_recurring: Handlers["list_recurring"] = async (params, ctx) => listRecurringOf(ctx, params);
