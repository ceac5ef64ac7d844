import type { Handlers } from "../../../generated/handlers.js";
import { getArticle } from "../../domain/knowledge/store.js";

export const get_knowledge_article: Handlers["get_knowledge_article"] = async (params, ctx) => ({
  article: await getArticle(ctx, params),
});
