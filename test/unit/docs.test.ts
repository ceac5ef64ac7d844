/**
 * The docs a newcomer reads stay true and readable in one sitting (issue 42 item 4; how to add a decision
 * is the head of docs/decisions.md):
 * - every `docs/decisions.md#anchor` cited in src/, test/, scripts/, codegen/, migrations/ and docs/ is an
 *   anchor of the index, a decision cited by title is named there, and every index line links to its file
 *   under docs/history/, which exists; every history file is linked;
 * - every `src/…`, `test/…`, `scripts/…`, `codegen/…` and `migrations/…` path quoted by docs/ outside
 *   docs/history/, README.md or a README.md under src/ exists (apps/ has its own src/: quote `apps/src/…`);
 * - every markdown link to a doc's #fragment lands on a heading or an anchor;
 * - docs/ outside docs/history/ is at most 3,500 lines of prose: the generated pages (GENERATED_PAGES, each
 *   saying so on its first lines) are left out, so a tool added changes no prose budget.
 * The generated pages' freshness (docs/schema.md, docs/tool-surface.md) is test/unit/docs-generated.test.ts.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOCS = join(ROOT, "docs");
const HISTORY = join(DOCS, "history");
const LINE_BUDGET = 3500;
/** Written by scripts, not people: out of the prose budget (their freshness: test/unit/docs-generated.test.ts). */
const GENERATED_PAGES = ["docs/tool-surface.md", "docs/schema.md"];

/** Files under dir (recursively) whose name passes keep, skipping node_modules and dot folders. */
function files(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...files(path, keep));
    else if (keep(entry)) out.push(path);
  }
  return out;
}

const read = (path: string) => readFileSync(path, "utf8");
const rel = (path: string) => relative(ROOT, path);
/** The markdown a newcomer reads: docs/ without docs/history/. */
const currentDocs = files(DOCS, (n) => n.endsWith(".md")).filter((f) => !f.startsWith(HISTORY + "/"));
/** The READMEs beside the code (src/statements/README.md …), whose quoted paths are held too. */
const codeReadmes = files(join(ROOT, "src"), (n) => n === "README.md");

const decisions = read(join(DOCS, "decisions.md"));
const indexAnchors = new Set([...decisions.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!));

describe("docs: decisions and their history", () => {
  it("every docs/decisions.md#anchor cited anywhere is an anchor of the index", () => {
    const sources = [
      ...["src", "test", "scripts", "codegen", "migrations"].flatMap((d) => files(join(ROOT, d), (n) => /\.(ts|js|mjs|cjs)$/.test(n))),
      ...files(DOCS, (n) => n.endsWith(".md")),
      join(ROOT, "README.md"),
    ];
    const broken: string[] = [];
    for (const file of sources) {
      for (const m of read(file).matchAll(/decisions\.md#([A-Za-z0-9_-]+)/g)) {
        // "docs/decisions.md#anchor" is how the rule itself is written.
        if (m[1] !== "anchor" && !indexAnchors.has(m[1]!)) broken.push(`${rel(file)}: #${m[1]}`);
      }
    }
    expect(broken, 'cite an anchor of docs/decisions.md\'s index, or add its line (docs/decisions.md, "Adding a decision")').to.deep.equal([]);
  });

  it('every decision cited by title (docs/decisions.md, "Title") is named in the index or its anchor\'s history file', () => {
    const sources = [
      ...["src", "test", "scripts", "codegen", "migrations"].flatMap((d) => files(join(ROOT, d), (n) => /\.(ts|js|mjs|cjs)$/.test(n))),
      ...currentDocs,
    ];
    const unknown: string[] = [];
    for (const file of sources) {
      for (const m of read(file).matchAll(/decisions\.md(#[A-Za-z0-9_-]+)?,? "([^"]+)"/g)) {
        const title = m[2]!.replace(/\s*\n\s*(\*|\/\/)?\s*/g, " "); // a title wrapped in a comment
        const history = m[1] ? join(HISTORY, `${m[1].slice(1)}.md`) : undefined;
        const named = decisions.includes(title) || (history !== undefined && existsSync(history) && read(history).includes(title));
        if (!named) unknown.push(`${rel(file)}: "${title}"`);
      }
    }
    expect(unknown, "cite the decision by its anchor: docs/decisions.md#anchor").to.deep.equal([]);
  });

  it("every index line names its anchor and links to a history file that exists", () => {
    const lines = decisions
      .slice(decisions.indexOf("\n## Index"))
      .split("\n")
      .filter((l) => l.includes('<a id="'));
    expect(lines.length).to.be.greaterThan(50);
    const wrong: string[] = [];
    for (const line of lines) {
      const m = /^\s*- <a id="([^"]+)"><\/a>\[[^\]]+\]\(history\/([^)#]+)\.md\) \(\d{4}-\d{2}-\d{2}\)(: \S|\.$)/.exec(line);
      if (!m) wrong.push(`not "- <a id=…></a>[Title](history/<anchor>.md) (date): what holds now.": ${line.slice(0, 80)}`);
      else if (m[1] !== m[2]) wrong.push(`#${m[1]} links to history/${m[2]}.md, not history/${m[1]}.md`);
      else if (!existsSync(join(HISTORY, `${m[2]}.md`))) wrong.push(`#${m[1]}: docs/history/${m[2]}.md does not exist`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it("every file under docs/history/ is linked from a doc outside it, or from another history file", () => {
    const linking = files(DOCS, (n) => n.endsWith(".md"))
      .map(read)
      .join("\n");
    const orphans = files(HISTORY, (n) => n.endsWith(".md"))
      .map((f) => relative(HISTORY, f))
      .filter((name) => !linking.includes(`history/${name}`) && !linking.includes(`(${name})`));
    expect(orphans, "link each history file from the doc it explains (or the decisions index)").to.deep.equal([]);
  });
});

describe("docs: what the reference pages quote", () => {
  it("every code path quoted outside docs/history/ (and in README.md and src/**/README.md) exists", () => {
    const missing: string[] = [];
    for (const file of [...currentDocs, ...codeReadmes, join(ROOT, "README.md")]) {
      for (const m of read(file).matchAll(/(?<![\w./@-])((?:src|test|scripts|codegen|migrations)\/[\w./-]*[\w/])/g)) {
        const path = m[1]!;
        // The walkthrough's files are the ones a reader creates (test/contract/walkthrough.test.ts writes them).
        if (/walkthrough[-_]/.test(path)) continue;
        if (!existsSync(join(ROOT, path))) missing.push(`${rel(file)}: ${path}`);
      }
    }
    expect(missing, "a doc quotes a path that is not in the repository: correct the doc").to.deep.equal([]);
  });

  it("every markdown link to a doc's #fragment (README.md and docs/ outside history) lands on a heading or an anchor", () => {
    /** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens; plus explicit <a id>. */
    const anchorsOf = (file: string): Set<string> => {
      const text = read(file);
      const ids = [...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!);
      const headings = [...text.matchAll(/^#+ (.*)$/gm)].map((m) =>
        m[1]!
          .replace(/<a id="[^"]+"><\/a>/g, "")
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, "")
          .replace(/ /g, "-"),
      );
      return new Set([...ids, ...headings]);
    };
    const broken: string[] = [];
    for (const file of [...currentDocs, join(ROOT, "README.md")]) {
      for (const m of read(file).matchAll(/\]\(([^)\s#]*\.md)#([^)\s]+)\)/g)) {
        const target = m[1] === "" ? file : join(file, "..", m[1]!);
        if (!existsSync(target)) broken.push(`${rel(file)}: ${m[1]} does not exist`);
        else if (!anchorsOf(target).has(m[2]!)) broken.push(`${rel(file)}: ${m[1]}#${m[2]}`);
      }
    }
    expect(broken, "a link names a section that is not there: link the heading as it is now").to.deep.equal([]);
  });

  it("leaves out of the budget only pages that say they are generated", () => {
    for (const page of GENERATED_PAGES) expect(read(join(ROOT, page)).split("\n").slice(0, 4).join("\n"), page).to.match(/Generated by `npm run \w+/);
  });

  it(`docs/ outside docs/history/ is at most ${LINE_BUDGET.toLocaleString("en")} lines of prose (generated pages left out)`, () => {
    const sizes = currentDocs
      .filter((f) => !GENERATED_PAGES.includes(rel(f)))
      .map((f) => ({ file: rel(f), lines: read(f).split("\n").length - (read(f).endsWith("\n") ? 1 : 0) }));
    const total = sizes.reduce((a, s) => a + s.lines, 0);
    const biggest = [...sizes]
      .sort((a, b) => b.lines - a.lines)
      .slice(0, 5)
      .map((s) => `${s.file} ${s.lines}`)
      .join(", ");
    expect(total, `docs/ outside docs/history/ is ${total} lines; move dated history and rationale to docs/history/ (biggest: ${biggest})`).to.be.at.most(
      LINE_BUDGET,
    );
  });
});
