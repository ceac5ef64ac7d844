import type { Handlers } from "../../../generated/handlers.js";
import { listRecurring } from "../../domain/recurring/list.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";

export const list_recurring: Handlers["list_recurring"] = async (params, ctx) =>
  listRecurring(ctx.db, ctx.caller.userId, todayInTimeZone(ctx.caller.timezone, ctx.now()), params.include_ended === true);
