import type { Handlers } from "../../../generated/handlers.js";
import { listCategoriesOf } from "../../domain/transactions/labels.js";

export const list_categories: Handlers["list_categories"] = async (params, ctx) => {
  const { labels, next_cursor } = await listCategoriesOf(ctx, params);
  return { categories: labels, next_cursor };
};
