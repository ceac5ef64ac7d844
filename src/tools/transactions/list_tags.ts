import type { Handlers } from "../../../generated/handlers.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";
import { listLabels } from "../../domain/transactions/labels.js";

export const list_tags: Handlers["list_tags"] = async (params, ctx) => {
  const { labels, next_cursor } = await listLabels(ctx.db, ctx.caller.userId, "tag", params, todayInTimeZone(ctx.caller.timezone, ctx.now()));
  return { tags: labels, next_cursor };
};
