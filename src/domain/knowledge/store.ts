/**
 * The knowledge base in the database, searched with each engine's own full-text index:
 * SQLite FTS5 (porter stemming, bm25 with titles weighted 10, tags 5, bodies 1) and Postgres tsvector
 * (GIN index; titles weight A, tags B, bodies D; ts_rank). User text never reaches either query language
 * as syntax: it is cut into words first, and only words are passed on.
 */
import type { Knex } from "knex";
import type { DomainContext } from "../../context.js";
import { clearFullTextIndex, indexForFullText, searchFullText } from "../../db/full-text.js";
import { loadCorpus, type KbEntry } from "./corpus.js";
import { packagePath } from "../../package-root.js";
import { AppError } from "../../errors.js";

export const DEFAULT_KB_FOLDER = packagePath("kb");

export interface KnowledgeHit {
  id: string;
  title: string;
  snippet: string;
  tags: string[];
  score: number;
}

const STOPWORDS = new Set(
  "a an and are as at be by can could do does did for from how i if in into is it its me my of on or please should so that the their them then there these this to was we what when where which who why will with would you your".split(
    " ",
  ),
);

/** The words of a question, lower-cased, contractions undone, stopwords and one-letter words dropped. */
export function queryWords(query: string): string[] {
  const text = query
    .toLowerCase()
    .replace(/n['’]t\b/g, " not")
    .replace(/['’](s|re|ll|ve|d|m)\b/g, "");
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w) && w !== "not"))].slice(0, 32);
}

export async function importCorpus(db: Knex, entries: KbEntry[], now = new Date()): Promise<number> {
  await db.transaction(async (trx) => {
    await trx("kb_entries").delete();
    await clearFullTextIndex(trx);
    for (const e of entries) {
      await trx("kb_entries").insert({ id: e.id, title: e.title, tags: JSON.stringify(e.tags), body: e.body, updated_at: now.toISOString() });
      await indexForFullText(trx, { id: e.id, title: e.title, tags: e.tags, body: e.body });
    }
  });
  return entries.length;
}

/** Loads the shipped corpus when the table is empty (first start, fresh test database). */
export async function seedKnowledgeBase(db: Knex, folder = DEFAULT_KB_FOLDER): Promise<void> {
  const row = await db("kb_entries").count<{ n: unknown }[]>({ n: "*" }).first();
  if (Number(row?.n ?? 0) > 0) return;
  await importCorpus(db, await loadCorpus(folder));
}

/** search_product_knowledge: the best `limit` entries for the words of `query` (5 when not given), among those with every tag of `tags`. */
export async function searchKnowledge(ctx: Pick<DomainContext, "db">, p: { query: string; limit?: number; tags?: readonly string[] }): Promise<KnowledgeHit[]> {
  const { db } = ctx;
  const { query, limit = 5, tags } = p;
  const words = queryWords(query);
  if (words.length === 0) return [];
  return (await searchFullText(db, words, limit, tags)).map((r) => hit(r, r.score));
}

export interface KnowledgeArticle {
  id: string;
  title: string;
  body: string;
  tags: string[];
  related: { id: string; title: string }[];
}

/** How many related entries an article names. */
const RELATED = 3;

/**
 * One entry whole, or undefined. Related entries are those sharing the most tags with it (ties by id):
 * the corpus is the product's help (tens of entries), so comparing tag lists in memory is cheaper than a
 * JSON query per dialect. One statement: every entry's id, title and tags, and the body of this one only.
 */
export async function findArticle(db: Knex, id: string): Promise<KnowledgeArticle | undefined> {
  const rows = (await db("kb_entries").select("id", "title", "tags", db.raw("CASE WHEN id = ? THEN body END AS body", [id]))) as {
    id: string;
    title: string;
    tags: string;
    body: string | null;
  }[];
  const row = rows.find((r) => r.id === id);
  if (!row) return undefined;
  const tags = JSON.parse(String(row.tags)) as string[];
  const related = rows
    .filter((o) => o.id !== id)
    .map((o) => ({ id: o.id, title: o.title, shared: (JSON.parse(o.tags) as string[]).filter((t) => tags.includes(t)).length }))
    .filter((o) => o.shared > 0)
    .sort((a, b) => b.shared - a.shared || (a.id < b.id ? -1 : 1))
    .slice(0, RELATED)
    .map(({ id: relatedId, title }) => ({ id: relatedId, title }));
  return { id: row.id, title: row.title, body: String(row.body).trim(), tags, related };
}

/** Every entry's id, title and tags, by id: the knowledge base as a list (MCP resources list it). */
export async function listArticles(db: Knex): Promise<{ id: string; title: string; tags: string[] }[]> {
  const rows = (await db("kb_entries").orderBy("id").select("id", "title", "tags")) as { id: string; title: string; tags: string }[];
  return rows.map((r) => ({ id: r.id, title: r.title, tags: JSON.parse(r.tags) as string[] }));
}

/** get_knowledge_article: the entry, or not_found on `id`. */
export async function getArticle(ctx: Pick<DomainContext, "db">, p: { id: string }): Promise<KnowledgeArticle> {
  const { id } = p;
  const field = "id";
  const article = await findArticle(ctx.db, id);
  if (!article) {
    throw new AppError("not_found", `${field}: no knowledge-base entry has the id ${JSON.stringify(id)}. Take ids from search_product_knowledge results.`, {
      field,
    });
  }
  return article;
}

function hit(r: Record<string, unknown>, score: number): KnowledgeHit {
  return {
    id: String(r.id),
    title: String(r.title),
    snippet: String(r.snippet ?? "")
      .replace(/\s+/g, " ")
      .trim(),
    tags: JSON.parse(String(r.tags)) as string[],
    score: Math.round(score * 10000) / 10000,
  };
}
