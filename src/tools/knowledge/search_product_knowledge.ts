import type { Handlers } from "../../../generated/handlers.js";
import { searchKnowledge } from "../../domain/knowledge/store.js";

export const search_product_knowledge: Handlers["search_product_knowledge"] = async (params, ctx) => ({
  results: await searchKnowledge(ctx, params),
});
