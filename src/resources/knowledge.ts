/**
 * The knowledge base articles as read-only text resources (scope read:knowledge), one per entry:
 * `finance://knowledge/<id>`, markdown with the title as its heading. The same entries
 * get_knowledge_article answers; the text is the product's help, data to the model, never instructions.
 */
import { findArticle, listArticles } from "../domain/knowledge/store.js";
import { resourceNotFound } from "./errors.js";
import type { ResourceProvider } from "./types.js";

const PREFIX = "finance://knowledge/";
const MIME = "text/markdown";

export const knowledgeArticles: ResourceProvider = {
  name: "knowledge base",
  scope: "read:knowledge",
  // The shipped help changes with a release; private: only tokens with the scope may read it.
  readCache: { ttlMs: 3_600_000, cacheScope: "private" },
  owns: (uri) => uri.startsWith(PREFIX),
  async list(ctx) {
    return (await listArticles(ctx.db)).map((a) => ({
      uri: `${PREFIX}${a.id}`,
      name: a.id,
      title: a.title,
      description: `Help article (${a.tags.join(", ")})`,
      mimeType: MIME,
    }));
  },
  async read(ctx, uri) {
    const article = await findArticle(ctx.db, uri.slice(PREFIX.length));
    if (!article) throw resourceNotFound(uri);
    return [{ uri, mimeType: MIME, text: `# ${article.title}\n\n${article.body}\n` }];
  },
};
