/**
 * Full-text search of the knowledge base in each engine's own index: SQLite FTS5 (table kb_fts, porter
 * stemming, bm25 with titles weighted 10, tags 5, bodies 1) and Postgres tsvector (kb_entries.search,
 * GIN; titles weight A, tags B, bodies D; ts_rank). The dialect-specific half of
 * src/domain/knowledge/store.ts, which cuts questions into words and shapes the hits.
 */
import type { Knex } from "knex";
import { dialect } from "./knex.js";

export interface FullTextHit extends Record<string, unknown> {
  score: number;
}

/** Empties the SQLite index (Postgres derives its tsvector from the row itself). */
export async function clearFullTextIndex(trx: Knex): Promise<void> {
  if (dialect(trx) === "sqlite") await trx.raw("DELETE FROM kb_fts");
}

/** Indexes one entry just inserted into kb_entries (SQLite only: Postgres's column is generated). */
export async function indexForFullText(trx: Knex, e: { id: string; title: string; tags: readonly string[]; body: string }): Promise<void> {
  if (dialect(trx) === "sqlite") {
    await trx.raw("INSERT INTO kb_fts (entry_id, title, tags, body) VALUES (?, ?, ?, ?)", [e.id, e.title, e.tags.join(" "), e.body]);
  }
}

function tagFilter(tags: readonly string[] | undefined): { sql: string; bindings: string[] } {
  if (!tags || tags.length === 0) return { sql: "", bindings: [] };
  return { sql: ` AND (${tags.map(() => "e.tags LIKE ?").join(" OR ")})`, bindings: tags.map((t) => `%${JSON.stringify(t)}%`) };
}

/**
 * Knowledge-base entries matching some of `words` (already plain words: user text never reaches either
 * query language as syntax), best first, each with its id, title, tags (JSON text), a snippet marking the
 * matched terms and a score (higher is better).
 */
export async function searchFullText(db: Knex, words: readonly string[], limit: number, tags?: readonly string[]): Promise<FullTextHit[]> {
  const filter = tagFilter(tags);
  if (dialect(db) === "sqlite") {
    // Each word quoted: FTS5 operators, column filters and quotes in user text stay plain words.
    const match = words.map((w) => `"${w}"`).join(" OR ");
    // Rank first, then snippet only the rows kept: snippet() re-reads and tokenizes a whole body, and a
    // question of a few common words matches most entries. The outer query reads `top` in its order (no
    // second sort), so the rows and their order are the single query's. The tag filter joins kb_entries
    // in the ranking, before the LIMIT, as it did.
    const rows = await db.raw(
      `WITH top AS MATERIALIZED (
         SELECT f.rowid AS fts_rowid, bm25(kb_fts, 0.0, 10.0, 5.0, 1.0) AS rank
           FROM kb_fts f JOIN kb_entries e ON e.id = f.entry_id
          WHERE kb_fts MATCH ?${filter.sql}
          ORDER BY rank LIMIT ?)
       SELECT f.entry_id AS id, e.title AS title, e.tags AS tags,
              snippet(kb_fts, 3, '**', '**', '…', 24) AS snippet, top.rank AS rank
         FROM top JOIN kb_fts f ON f.rowid = top.fts_rowid JOIN kb_entries e ON e.id = f.entry_id
        WHERE kb_fts MATCH ?
        ORDER BY top.rank`,
      [match, ...filter.bindings, limit, match],
    );
    return (rows as Record<string, unknown>[]).map((r) => ({ ...r, score: -Number(r.rank) }));
  }
  // Entries that contain every word rank above those that contain some (ts_rank alone does not weigh
  // rare words, so a plain OR lets common words win; a plain AND misses new wordings).
  const all = words.join(" & ");
  const any = words.join(" | ");
  const result = await db.raw(
    `SELECT e.id, e.title, e.tags,
            ts_headline('english', e.body, to_tsquery('english', ?), 'StartSel=**, StopSel=**, MaxWords=30, MinWords=12, MaxFragments=1') AS snippet,
            (CASE WHEN e.search @@ to_tsquery('english', ?) THEN 1 ELSE 0 END) + ts_rank(e.search, to_tsquery('english', ?)) AS score
       FROM kb_entries e
      WHERE e.search @@ to_tsquery('english', ?)${filter.sql}
      ORDER BY score DESC, e.id LIMIT ?`,
    [any, all, any, any, ...filter.bindings, limit],
  );
  return (result.rows as Record<string, unknown>[]).map((r) => ({ ...r, score: Number(r.score) }));
}
