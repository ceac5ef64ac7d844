import type { Handlers } from "../../../generated/handlers.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { listLabels } from "../../domain/transactions/labels.js";

export const list_categories: Handlers["list_categories"] = async (params, ctx) => {
  const { labels, next_cursor } = await listLabels(ctx.db, ctx.caller.userId, "category", params, todayInTimeZone(ctx.caller.timezone, ctx.now()));
  return { categories: labels, next_cursor };
};
