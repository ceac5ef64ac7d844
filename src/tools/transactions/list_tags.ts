import type { Handlers } from "../../../generated/handlers.js";
import { todayFor } from "../../domain/shared/common.js";
import { listLabels } from "../../domain/transactions/labels.js";

export const list_tags: Handlers["list_tags"] = async (params, ctx) => {
  const { labels, next_cursor } = await listLabels(ctx.db, ctx.caller.userId, "tag", params, todayFor(ctx));
  return { tags: labels, next_cursor };
};
