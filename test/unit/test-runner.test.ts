/**
 * The test runner (scripts/run-tests.mjs) on a suite that needs a missing part: the run passes, and its
 * end names the part and the reason on one line; with the part's REQUIRE_* switch the same run fails.
 * Driven through `--rerun-skipped` on a hand-written last run, so that only the fixture suite runs, with
 * the runner's results in a temporary folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("npm test's runner: missing external parts", function () {
  this.timeout(180_000);
  let results: string;
  before(() => {
    results = mkdtempSync(join(tmpdir(), "fmcp-runner-"));
    const skips = [{ engine: "sqlite", part: "python3", reason: "(from an earlier run)", file: "test/fixtures/skip-fixture.ts" }];
    writeFileSync(join(results, "last-run.json"), JSON.stringify({ skips }));
  });
  after(() => rmSync(results, { recursive: true, force: true }));

  const runner = (env: Record<string, string>) =>
    spawnSync(process.execPath, ["scripts/run-tests.mjs", "--rerun-skipped"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 170_000,
      env: { ...process.env, FINANCE_TEST_RESULTS: results, REQUIRE_PYTHON: "", ...env },
    });

  it("skips the suite, passes, and prints the reason on one line at the end", () => {
    const run = runner({});
    expect(run.status, run.stdout + run.stderr).to.equal(0);
    const summary = run.stdout.slice(run.stdout.indexOf("=== skipped for a missing external part ==="));
    expect(summary).to.match(
      /^python3: the fixture pretends python3 is missing \(.*REQUIRE_PYTHON=1 makes this a failure\) \[sqlite; 1 file\(s\): test\/fixtures\/skip-fixture\.ts\]$/m,
    );
    expect(run.stdout).to.include("1 pending");
  });

  it("fails the run under the part's REQUIRE_* switch", () => {
    const run = runner({ REQUIRE_PYTHON: "1" });
    expect(run.status, run.stdout).to.equal(1);
    expect(run.stdout + run.stderr).to.include("REQUIRE_PYTHON=1 but the fixture pretends python3 is missing");
  });
});
