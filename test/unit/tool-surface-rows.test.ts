/**
 * docs/tool-surface.md (written by `npm run surface`) has a row for every tool of the registry and none
 * for a tool that is gone, in both of its tables: what the tool costs a model to read, and its largest
 * answer for a read tool. A tool added without `npm run surface` fails here, naming the step
 * (docs/adding-a-tool.md, "What every tool must meet"). The figures themselves are the script's.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { tools } from "../../generated/registry.js";

const doc = readFileSync(fileURLToPath(new URL("../../docs/tool-surface.md", import.meta.url)), "utf8");
const STEP = "run `npm run surface` and commit docs/tool-surface.md (docs/adding-a-tool.md, step 6)";

/** The first cell of every table row of the page. */
const firstCells = doc
  .split("\n")
  .filter((l) => l.startsWith("| ") && !l.startsWith("|---"))
  .map((l) => l.slice(2, l.indexOf(" |", 2)).trim());

describe("docs/tool-surface.md: a row for every tool", () => {
  it("has each tool's token row, and no row for a tool the registry does not have", () => {
    // A token row: the name, then its model-visible tokens (header rows have words there).
    const rows = [...doc.matchAll(/^\| ([a-z][a-z0-9_]*) \| \d+ \|/gm)].map((m) => m[1]!);
    expect(
      tools.map((t) => t.name).filter((n) => !rows.includes(n)),
      `tools without a row: ${STEP}`,
    ).to.deep.equal([]);
    expect(
      rows.filter((r) => !tools.some((t) => t.name === r)),
      `rows of tools that are gone: ${STEP}`,
    ).to.deep.equal([]);
  });

  it("has each read tool's largest answer", () => {
    const measured = firstCells.map((c) => /^([a-z][a-z0-9_]*) [{[]/.exec(c)?.[1]).filter(Boolean);
    expect(
      tools.filter((t) => t.kind === "read" && !measured.includes(t.name)).map((t) => t.name),
      `read tools without a measured answer: ${STEP}`,
    ).to.deep.equal([]);
  });
});
