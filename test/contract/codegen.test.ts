/**
 * Pins the code generator: generated/ is what openrpc.json produces (codegen:check passes), an edit of
 * openrpc.json that was not regenerated makes codegen:check fail, and every spec method has exactly one
 * handler module (no handler without a method either).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { handlers } from "../../generated/tool-modules.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const spec = JSON.parse(readFileSync(join(root, "openrpc.json"), "utf8"));

function codegenCheck(dir: string) {
  return spawnSync(process.execPath, ["--import", "tsx", join(root, "codegen/index.ts"), "--check", "--root", dir], { encoding: "utf8", cwd: root });
}

describe("codegen", function () {
  this.timeout(120_000);

  it("codegen:check passes on the committed tree", () => {
    const r = codegenCheck(root);
    expect(r.status, r.stderr).to.equal(0);
  });

  it("codegen:check fails after an edit of openrpc.json that was not regenerated", () => {
    const dir = mkdtempSync(join(tmpdir(), "fmcp-codegen-"));
    try {
      cpSync(join(root, "openrpc.json"), join(dir, "openrpc.json"));
      for (const f of ["package.json", "server.json", "chatgpt-app-submission.json", "PRIVACY.md"]) cpSync(join(root, f), join(dir, f));
      cpSync(join(root, "generated"), join(dir, "generated"), { recursive: true });
      cpSync(join(root, "clients/typescript/src"), join(dir, "clients/typescript/src"), { recursive: true });
      cpSync(join(root, "clients/openrpc"), join(dir, "clients/openrpc"), { recursive: true });
      expect(codegenCheck(dir).status, "copy before the edit").to.equal(0);
      const edited = JSON.parse(readFileSync(join(dir, "openrpc.json"), "utf8"));
      edited.methods[0].description = edited.methods[0].description.slice(0, 120); // shorter: stays within the token budgets
      writeFileSync(join(dir, "openrpc.json"), JSON.stringify(edited, null, 2));
      const r = codegenCheck(dir);
      expect(r.status).to.equal(1);
      expect(r.stderr).to.contain("generated/registry.ts");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("codegen fails, naming the budget, when the tool surface is over a budget", () => {
    const dir = mkdtempSync(join(tmpdir(), "fmcp-codegen-"));
    try {
      cpSync(join(root, "openrpc.json"), join(dir, "openrpc.json"));
      for (const f of ["package.json", "server.json", "chatgpt-app-submission.json", "PRIVACY.md"]) cpSync(join(root, f), join(dir, f));
      cpSync(join(root, "generated"), join(dir, "generated"), { recursive: true });
      cpSync(join(root, "clients/typescript/src"), join(dir, "clients/typescript/src"), { recursive: true });
      cpSync(join(root, "clients/openrpc"), join(dir, "clients/openrpc"), { recursive: true });
      const edited = JSON.parse(readFileSync(join(dir, "openrpc.json"), "utf8"));
      // Every tool carries the same long sentence: too long a description, a repeated sentence, and many tokens.
      const filler = Array.from({ length: 40 }, (_, i) => `This sentence number ${i} repeats the same shared convention in every tool description.`).join(" ");
      for (const m of edited.methods) m.description += ` ${filler}`;
      writeFileSync(join(dir, "openrpc.json"), JSON.stringify(edited, null, 2));
      const r = codegenCheck(dir);
      expect(r.status).to.equal(1);
      expect(r.stderr).to.contain("over budget");
      expect(r.stderr).to.match(/model-visible tools\/list is \d+ tokens/);
      expect(r.stderr).to.match(/whole tools\/list is \d+ tokens/);
      expect(r.stderr).to.match(/list_transactions: description is \d+ characters, above 1024/);
      expect(r.stderr).to.contain(`is in ${edited.methods.length} descriptions`);
      // Where to make room: the headroom and the five most expensive tools with what in them costs most.
      expect(r.stderr).to.match(/headroom -\d+/);
      expect(r.stderr).to.match(/list_transactions: \d+ model-visible tokens, above 400 for one tool/);
      const costliest = r.stderr
        .split("The five most expensive tools")[1]!
        .split("\n")
        .filter((l) => /^ {2}\w+: \d+ tokens \(/.test(l));
      expect(costliest).to.have.length(5);
      expect(costliest[0]).to.match(/description \d+, inputSchema \d+|description \d+, annotations/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has a handler for every spec method and no handler without one", () => {
    const specNames = spec.methods.map((m: any) => m.name).sort();
    expect(Object.keys(handlers).sort()).to.deep.equal(specNames);
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith(".ts") && e.name !== "context.ts") files.push(relative(join(root, "src/tools"), join(dir, e.name)));
      }
    };
    walk(join(root, "src/tools"));
    const handlerFiles = files
      .map((f) => f.split("/").pop()!.replace(/\.ts$/, ""))
      .filter((n) => /^[a-z]+(_[a-z]+)+$/.test(n) || n === "whoami" || n === "calculate");
    expect(handlerFiles.sort()).to.deep.equal(specNames);
  });
});
