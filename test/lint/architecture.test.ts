/**
 * The layering rules of .dependency-cruiser.cjs can fail: each is run on a small fixture tree that
 * breaks it (an import cycle through a type-only import, domain code importing a transport, a tool
 * importing another tool), and on the real tree, which must pass. `npm run lint` runs the same rules.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = fileURLToPath(new URL("../..", import.meta.url));
const depcruise = join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

function cruise(cwd: string, ...paths: string[]) {
  return spawnSync(process.execPath, [depcruise, "--config", join(root, ".dependency-cruiser.cjs"), ...paths], { cwd, encoding: "utf8" });
}

describe("architecture rules (dependency-cruiser)", function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-arch-"));
    const files: Record<string, string> = {
      "tsconfig.json": JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true } }),
      "package.json": JSON.stringify({ type: "module" }),
      "src/domain/a/one.ts": `import type { Two } from "./two.js";\nexport interface One { two?: Two }\n`,
      "src/domain/a/two.ts": `import type { One } from "./one.js";\nexport interface Two { one?: One }\n`,
      "src/domain/b/rule.ts": `import { route } from "../../http/route.js";\nexport const rule = route;\n`,
      "src/http/route.ts": `export const route = 1;\n`,
      "src/tools/area/first_tool.ts": `import { second } from "./second_tool.js";\nexport const first = second;\n`,
      "src/tools/area/second_tool.ts": `export const second = 2;\n`,
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("fails a tree that breaks each rule, naming the rule and the modules", () => {
    const r = cruise(dir, "src");
    expect(r.status, r.stdout + r.stderr).to.not.equal(0);
    expect(r.stdout).to.match(/no-cycles: src\/domain\/a\/(one|two)\.ts/);
    expect(r.stdout).to.contain("domain-knows-no-transport: src/domain/b/rule.ts → src/http/route.ts");
    expect(r.stdout).to.contain("tool-imports-no-tool: src/tools/area/first_tool.ts → src/tools/area/second_tool.ts");
  });

  it("passes the project's own tree", () => {
    const r = cruise(root, "src", "codegen", "scripts", "bin");
    expect(r.status, r.stdout + r.stderr).to.equal(0);
  });
});
