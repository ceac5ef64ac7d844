/**
 * Pins search_product_knowledge and calculate through the whole server: ranking quality on realistic
 * questions (>= 90% find their entry in the top 3), safety of any user text in the query, limits, and
 * the calculator's answers and errors as a client sees them.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { queryWords, searchKnowledge } from "../../src/domain/knowledge/store.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const questions: { question: string; expected: string }[] = JSON.parse(readFileSync(new URL("../fixtures/kb-questions.json", import.meta.url), "utf8"));

describe(`knowledge base and calculator (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server.close());

  it("ships at least 40 entries, loaded at start", async () => {
    const n = Number((await server.db("kb_entries").count({ n: "*" }))[0]!.n);
    expect(n).to.be.at.least(40);
  });

  it("finds the right entry in the top 3 for at least 90% of realistic questions", async () => {
    expect(questions.length).to.be.at.least(25);
    const misses: string[] = [];
    for (const q of questions) {
      const { results } = await server.call("search_product_knowledge", { query: q.question, limit: 3 }, user.token);
      if (!results.some((r: { id: string }) => r.id === q.expected)) misses.push(`${q.question} → ${q.expected} (got ${results.map((r: { id: string }) => r.id).join(", ")})`);
    }
    const hitRate = 1 - misses.length / questions.length;
    expect(hitRate, `misses:\n${misses.join("\n")}`).to.be.at.least(0.9);
  });

  it("answers with id, title, a snippet marking matched terms, tags and a score, best first", async () => {
    const { results } = await server.call("search_product_knowledge", { query: "revoke a token" }, user.token);
    expect(results.length).to.be.within(1, 5);
    for (const r of results) {
      expect(r.id).to.match(/^kb_/);
      expect(r.title).to.be.a("string").and.not.empty;
      expect(r.tags).to.be.an("array");
      expect(r.score).to.be.a("number");
    }
    expect(results.map((r: { score: number }) => r.score)).to.deep.equal([...results.map((r: { score: number }) => r.score)].sort((a, b) => b - a));
    expect(results.some((r: { snippet: string }) => /\*\*[^*]+\*\*/.test(r.snippet))).to.equal(true);
  });

  describe("get_knowledge_article", () => {
    it("returns the entry a search found, whole: the file's body, its tags, and related entries sharing the most tags", async () => {
      const { results } = await server.call("search_product_knowledge", { query: "retry with the same idempotency key", limit: 1 }, user.token);
      const { article } = await server.call("get_knowledge_article", { id: results[0].id }, user.token);
      expect(article.id).to.equal(results[0].id);
      expect(article.title).to.equal(results[0].title);
      // The snippet is an excerpt of the body (markers removed), and the body is the whole entry.
      expect(article.body.length).to.be.greaterThan(results[0].snippet.length);
      const stored = await server.db("kb_entries").where({ id: article.id }).first("body", "tags");
      expect(article.body).to.equal(String(stored.body).trim());
      expect(article.tags).to.deep.equal(JSON.parse(stored.tags));
      expect(article.related.length).to.be.within(1, 3);
      const all = (await server.db("kb_entries").select("id", "tags")) as { id: string; tags: string }[];
      const shared = (id: string) => (JSON.parse(all.find((e) => e.id === id)!.tags) as string[]).filter((t) => article.tags.includes(t)).length;
      const counts = article.related.map((r: { id: string }) => shared(r.id));
      expect(counts.every((n: number) => n > 0)).to.equal(true);
      expect(counts).to.deep.equal([...counts].sort((a, b) => b - a));
      // No entry left out shares more tags than the least related one named.
      const named = new Set([article.id, ...article.related.map((r: { id: string }) => r.id)]);
      for (const e of all.filter((x) => !named.has(x.id))) expect(shared(e.id), e.id).to.be.at.most(Math.min(...counts));
    });

    it("answers not_found naming id for an unknown entry, and invalid_params for a malformed id", async () => {
      const missing = await server.callError("get_knowledge_article", { id: "kb_no-such-entry" }, user.token);
      expect(missing.data).to.include({ code: "not_found", field: "id" });
      expect(missing.message).to.match(/search_product_knowledge/);
      const bad = await server.callError("get_knowledge_article", { id: "txn_123" }, user.token);
      expect(bad.data).to.include({ code: "invalid_params", field: "id" });
    });
  });

  it("never fails on quotes, operators and punctuation in the query", async () => {
    const nasty = ['"unbalanced', "NEAR(a b)", "title:token", "a OR", "AND", "*", "^x", "token -revoke", "'; DROP TABLE kb_entries; --", "(((", "a & b | !c", "<->", ":*", "{}[]", "\\", "✓ ünïcödé", "isn't allowed", "   "];
    for (const query of nasty) {
      const answer = await server.call("search_product_knowledge", { query }, user.token);
      expect(answer.results, query).to.be.an("array");
    }
    expect(Number((await server.db("kb_entries").count({ n: "*" }))[0]!.n)).to.be.at.least(40);
  });

  it("applies limit: default 5, at most 20", async () => {
    const dflt = await server.call("search_product_knowledge", { query: "token scope rate limit budget goal wallet" }, user.token);
    expect(dflt.results).to.have.length(5);
    const twenty = await server.call("search_product_knowledge", { query: "token scope rate limit budget goal wallet transaction bill error money", limit: 20 }, user.token);
    expect(twenty.results.length).to.be.within(6, 20);
    const tooMany = await server.callError("search_product_knowledge", { query: "token", limit: 21 }, user.token);
    expect(tooMany.data.code).to.equal("invalid_params");
    expect(tooMany.data.field).to.equal("limit");
  });

  it("ranks before it snippets: each shorter limit is a prefix of the longer, snippets included, with and without tags", async () => {
    const tagSets = [undefined, ["budgets"], ["tokens", "security"], ["no-such-tag"]];
    for (const q of [...questions.map((x) => x.question), "token scope rate limit budget goal wallet transaction bill error money"]) {
      for (const tags of tagSets) {
        const all = await searchKnowledge(server, { query: q, limit: 20, tags });
        for (const limit of [1, 3, 5]) expect(await searchKnowledge(server, { query: q, limit, tags }), `${q} ${limit} ${tags}`).to.deep.equal(all.slice(0, limit));
      }
    }
  });

  if (engine === "sqlite") {
    it("returns what one FTS5 statement with snippet and bm25 over every match returns", async () => {
      const reference = async (q: string, limit: number, tags?: string[]) => {
        const match = queryWords(q).map((w) => `"${w}"`).join(" OR ");
        const tagSql = tags ? ` AND (${tags.map(() => "e.tags LIKE ?").join(" OR ")})` : "";
        const rows: Record<string, unknown>[] = await server.db.raw(
          `SELECT f.entry_id AS id, e.title AS title, e.tags AS tags, snippet(kb_fts, 3, '**', '**', '…', 24) AS snippet, bm25(kb_fts, 0.0, 10.0, 5.0, 1.0) AS rank
             FROM kb_fts f JOIN kb_entries e ON e.id = f.entry_id WHERE kb_fts MATCH ?${tagSql} ORDER BY rank LIMIT ?`,
          [match, ...(tags ?? []).map((t) => `%${JSON.stringify(t)}%`), limit],
        );
        return rows.map((r) => ({ id: r.id, snippet: String(r.snippet).replace(/\s+/g, " ").trim(), score: Math.round(-Number(r.rank) * 10000) / 10000 }));
      };
      let compared = 0;
      for (const q of [...questions.map((x) => x.question), "budget", "token scope rate limit budget goal wallet transaction bill error money"]) {
        for (const tags of [undefined, ["budgets"], ["tokens", "security"]]) {
          for (const limit of [1, 5, 20]) {
            const got = (await searchKnowledge(server, { query: q, limit, tags })).map((h) => ({ id: h.id, snippet: h.snippet, score: h.score }));
            expect(got, `${q} ${limit} ${tags}`).to.deep.equal(await reference(q, limit, tags));
            compared += got.length;
          }
        }
      }
      expect(compared).to.be.greaterThan(500);
    });
  }

  it("calculates exactly and echoes the expression", async () => {
    expect(await server.call("calculate", { expression: "0.1 + 0.2" }, user.token)).to.deep.equal({ result: "0.3", expression: "0.1 + 0.2" });
    expect((await server.call("calculate", { expression: "15% of 80" }, user.token)).result).to.equal("12");
    expect((await server.call("calculate", { expression: "round(1234.5678, 2) * 3" }, user.token)).result).to.equal("3703.71");
  });

  it("reports calculator errors with the position, as calculation_error", async () => {
    const err = await server.callError("calculate", { expression: "10 / (5 - 5)" }, user.token);
    expect(err.code).to.equal(-32010);
    expect(err.data.code).to.equal("calculation_error");
    expect(err.data.reason).to.equal("division_by_zero");
    expect(err.data.position).to.equal(3);
    const long = await server.callError("calculate", { expression: "1+".repeat(200) + "1" }, user.token);
    expect(long.data.code).to.equal("invalid_params");
    expect(long.data.field).to.equal("expression");
  });
});
