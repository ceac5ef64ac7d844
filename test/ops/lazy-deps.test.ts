/**
 * Optional dependencies load only when their feature is on: pino-pretty for LOG_FORMAT=pretty, prom-client
 * for METRICS=on. A fresh process imports the whole app (src/app.ts) and a JSON logger, and must not have
 * loaded either; then it turns each feature on and must have loaded it (so the check can fail).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = fileURLToPath(new URL("../..", import.meta.url));

const SCRIPT = `
import { createRequire } from "node:module";
const require = createRequire(${JSON.stringify(join(root, "package.json"))});
const loaded = (name) => Object.keys(require.cache).some((k) => k.includes("/node_modules/" + name + "/"));
const { createLogger } = await import(${JSON.stringify(join(root, "src/log.ts"))});
await import(${JSON.stringify(join(root, "src/app.ts"))});
createLogger("silent", "json");
const off = { pretty: loaded("pino-pretty"), prom: loaded("prom-client") };
createLogger("silent", "pretty");
const { createMetrics } = await import(${JSON.stringify(join(root, "src/metrics/metrics.ts"))});
await createMetrics({ db: {}, openStreams: () => 0 });
const on = { pretty: loaded("pino-pretty"), prom: loaded("prom-client") };
console.log(JSON.stringify({ off, on }));
`;

describe("optional dependencies load only when their feature is on", function () {
  this.timeout(60_000);
  it("pino-pretty only for LOG_FORMAT=pretty, prom-client only with METRICS=on", () => {
    const dir = mkdtempSync(join(tmpdir(), "fmcp-lazy-"));
    try {
      writeFileSync(join(dir, "probe.mts"), SCRIPT);
      const r = spawnSync(process.execPath, ["--import", "tsx", join(dir, "probe.mts")], { cwd: root, encoding: "utf8" });
      expect(r.status, r.stderr).to.equal(0);
      const lines = r.stdout.trim().split("\n");
      expect(JSON.parse(lines[lines.length - 1]!)).to.deep.equal({ off: { pretty: false, prom: false }, on: { pretty: true, prom: true } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
