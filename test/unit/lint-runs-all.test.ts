/**
 * `npm run lint` (scripts/lint.mjs) runs every checker whatever the others found and names each one that
 * failed: with an `npx` on the PATH that fails every command, all four run and all four are named.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("npm run lint reports every failing checker", () => {
  let bin: string;
  before(() => {
    bin = mkdtempSync(join(tmpdir(), "finance-mcp-lint-"));
    writeFileSync(join(bin, "npx"), '#!/bin/sh\necho "ran $2"\nexit 1\n');
    chmodSync(join(bin, "npx"), 0o755);
  });
  after(() => rmSync(bin, { recursive: true, force: true }));

  it("runs the four checkers after the first fails, and names each with its fix", () => {
    const run = spawnSync(process.execPath, ["scripts/lint.mjs"], { cwd: root, encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    expect(run.status).to.equal(1);
    for (const tool of ["prettier", "eslint", "depcruise", "knip"]) expect(run.stdout).to.include(`ran ${tool}`);
    for (const name of ["prettier", "eslint", "dependency-cruiser", "knip"]) expect(run.stderr).to.include(`lint: ${name} failed`);
  });
});
