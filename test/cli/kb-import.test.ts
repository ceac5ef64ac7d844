/** Pins `npx finance-mcp kb import <folder>`: it replaces the knowledge base with the folder's entries. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { searchKnowledge } from "../../src/domain/knowledge/store.js";
import { createTestDatabase, engine } from "../helpers/database.js";

const cli = (url: string, ...args: string[]) =>
  spawnSync(process.execPath, ["bin/finance-mcp.js", ...args], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: "silent" }, encoding: "utf8" });

describe(`finance-mcp kb import (${engine})`, function () {
  this.timeout(60_000);

  it("imports the shipped corpus, then re-imports another folder in its place", async () => {
    const database = await createTestDatabase();
    const folder = mkdtempSync(join(tmpdir(), "fmcp-kb-"));
    const db = createDb(database.url);
    try {
      const first = cli(database.url, "kb", "import", "kb");
      expect(first.status, first.stderr).to.equal(0);
      expect(JSON.parse(first.stdout).imported).to.be.at.least(40);

      writeFileSync(
        join(folder, "zebra-budgets.md"),
        "---\ntitle: Striped zebra budgets\ntags: [budgets]\n---\nZebra budgets alternate months of saving and spending.\n",
      );
      const second = cli(database.url, "kb", "import", folder);
      expect(second.status, second.stderr).to.equal(0);
      expect(JSON.parse(second.stdout).imported).to.equal(1);
      const hits = await searchKnowledge({ db }, { query: "zebra", limit: 5 });
      expect(hits.map((h) => h.id)).to.deep.equal(["kb_zebra-budgets"]);
      expect(await searchKnowledge({ db }, { query: "revoke token", limit: 5 })).to.deep.equal([]);

      writeFileSync(join(folder, "broken.md"), "no front matter here\n");
      const bad = cli(database.url, "kb", "import", folder);
      expect(bad.status).to.not.equal(0);
      expect(bad.stderr).to.contain("broken.md");
      expect((await searchKnowledge({ db }, { query: "zebra", limit: 5 })).length, "a failed import changes nothing").to.equal(1);
    } finally {
      await db.destroy();
      await database.drop();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
