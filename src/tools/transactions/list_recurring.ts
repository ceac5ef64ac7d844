import type { Handlers } from "../../../generated/handlers.js";
import { listRecurring } from "../../domain/recurring/list.js";
import { todayFor } from "../../domain/shared/common.js";

export const list_recurring: Handlers["list_recurring"] = async (params, ctx) =>
  listRecurring(ctx.db, ctx.caller.userId, todayFor(ctx), params.include_ended === true);
