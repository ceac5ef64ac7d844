/**
 * The help knowledge base knows the whole product (issue 49, item 4): every tool is named by an article
 * besides the tools overview, every page or address a person is sent to (by an answer, an error, the
 * spec or a page's link) is named by one, and the words a person uses find the article that explains
 * them through search_product_knowledge, on both engines.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { tools } from "../../generated/registry.js";
import { loadCorpus } from "../../src/domain/knowledge/corpus.js";
import { DEFAULT_KB_FOLDER } from "../../src/domain/knowledge/store.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const root = new URL("../../", import.meta.url).pathname;
const filesUnder = (dir: string): string[] =>
  readdirSync(join(root, dir)).flatMap((f) => (statSync(join(root, dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)]));

/**
 * The paths a person is sent to: those in what a model reads (the spec; answers and errors written in
 * src/domain, src/mcp, src/rpc, src/writes, src/auth, src/errors.ts) and the links of the web pages,
 * less the machine endpoints (health, OAuth's own steps) and the home page.
 */
function pathsAPersonIsSentTo(): string[] {
  const sources = ["openrpc.json", "src/errors.ts", ...["src/domain", "src/mcp", "src/rpc", "src/writes", "src/auth"].flatMap(filesUnder)];
  const paths = new Set<string>();
  for (const f of sources) for (const m of readFileSync(join(root, f), "utf8").matchAll(/\/(?:account|api\/v1)[a-z0-9/-]*/g)) paths.add(m[0]);
  for (const f of filesUnder("src/web")) for (const m of readFileSync(join(root, f), "utf8").matchAll(/href="(\/[a-z0-9/-]+)/g)) paths.add(m[1]!);
  return [...paths].map((p) => p.replace(/\/$/, "")).filter((p) => !/^\/(healthz|readyz|oauth)/.test(p) && !/\/(tok|sse|openrpc)$/.test(p));
}

/** The words a person uses and the article that must come up for each (in the top 3). */
const WORDS: [string, string][] = [
  ["refund", "kb_refunds"],
  ["undo", "kb_undo-a-change"],
  ["import", "kb_import-bank-statement"],
  ["forecast", "kb_cash-flow-forecast"],
  ["share", "kb_share-with-partner"],
  ["read-only", "kb_read-only-endpoint"],
  ["partner", "kb_share-with-partner"],
];

describe(`the knowledge base covers the product (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server?.close());

  it("names every tool in an article besides the overview", async () => {
    const corpus = (await loadCorpus(DEFAULT_KB_FOLDER)).filter((e) => e.id !== "kb_tools-overview");
    const unnamed = tools.map((t) => t.name).filter((name) => !corpus.some((e) => new RegExp(`\\b${name}\\b`).test(e.body)));
    expect(unnamed, "tools no article names").to.deep.equal([]);
    // The overview counts and lists them all.
    const overview = (await loadCorpus(DEFAULT_KB_FOLDER)).find((e) => e.id === "kb_tools-overview")!;
    expect(overview.title).to.include(`all ${tools.length} `);
    for (const t of tools) expect(overview.body, t.name).to.include(`\`${t.name}\``);
  });

  it("names every page and address a person is sent to", async () => {
    const paths = pathsAPersonIsSentTo();
    expect(paths).to.include.members(["/account", "/account/import", "/api/v1/mcp/read"]);
    const text = (await loadCorpus(DEFAULT_KB_FOLDER)).map((e) => e.body).join("\n");
    expect(paths.filter((p) => !text.includes(p))).to.deep.equal([]);
  });

  it("finds the article for the words a person uses", async () => {
    const misses: string[] = [];
    for (const [query, id] of WORDS) {
      const { results } = await server.call("search_product_knowledge", { query, limit: 3 }, user.token);
      if (!results.some((r: { id: string }) => r.id === id)) misses.push(`${query} → ${id} (got ${results.map((r: { id: string }) => r.id).join(", ") || "nothing"})`);
    }
    expect(misses).to.deep.equal([]);
  });

  it("explains undo, statement import, the forecast, the read-only endpoint and a partner's access from /account", async () => {
    const article = async (id: string) => (await server.call("get_knowledge_article", { id }, user.token)).article.body as string;
    expect(await article("kb_undo-a-change")).to.include("undo_change").and.include("list_changes");
    expect(await article("kb_import-bank-statement")).to.include("dry_run").and.include("preview_id").and.include("/account/import");
    expect(await article("kb_cash-flow-forecast")).to.include("safe_to_spend").and.include("wallet_ids").and.include("what_if");
    expect(await article("kb_read-only-endpoint")).to.include("/api/v1/mcp/read");
    const partner = await article("kb_share-with-partner");
    expect(partner).to.include("/account").and.include("/api/v1/mcp/read");
    expect(partner).to.not.match(/curl|-u /);
  });
});
