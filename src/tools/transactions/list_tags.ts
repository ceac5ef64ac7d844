import type { Handlers } from "../../../generated/handlers.js";
import { listTagsOf } from "../../domain/transactions/labels.js";

export const list_tags: Handlers["list_tags"] = async (params, ctx) => {
  const { labels, next_cursor } = await listTagsOf(ctx, params);
  return { tags: labels, next_cursor };
};
