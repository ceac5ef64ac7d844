/**
 * The generated pages of docs/ are what their generators write now (issue 42 item 4: every figure in the
 * docs is generated or tested). Each generator's --check mode regenerates in memory and compares byte for
 * byte, writing nothing:
 * - docs/tool-surface.md, `npm run surface` (token costs of the tool surface and of each read tool's
 *   largest answer; engine-independent, so it runs in the SQLite run only);
 * - docs/schema.md, `npm run schema` (what the migrations make on both engines; it needs Postgres, so it
 *   runs in the Postgres run, and CI's `npm run schema:check` holds it too).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { engine } from "../helpers/database.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function check(script: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ["--import", "tsx", script, "--check"], { cwd: ROOT, encoding: "utf8", timeout: 240_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe(`docs: generated pages are fresh (${engine})`, function () {
  this.timeout(300_000);

  if (engine === "sqlite") {
    it("docs/tool-surface.md is what `npm run surface` writes", () => {
      const run = check("scripts/surface.ts");
      expect(run.status, `run \`npm run surface\` and commit docs/tool-surface.md\n${run.output.slice(-2000)}`).to.equal(0);
    });
  }

  if (engine === "postgres") {
    it("docs/schema.md is what `npm run schema` writes from the migrations", () => {
      const run = check("scripts/schema-report.ts");
      expect(run.status, `run \`npm run schema\` and commit docs/schema.md\n${run.output.slice(-2000)}`).to.equal(0);
    });
  }
});
