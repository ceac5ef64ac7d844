/**
 * Pins the code generator: openrpc.json and generated/ are what contract/ produces (codegen:check passes),
 * an edit of a contract part that was not regenerated makes codegen:check fail, and so does a hand edit of
 * openrpc.json; a part with a key given twice, a tool declared twice or a tool in another area's file stops
 * codegen, naming the file; every spec method has exactly one handler module (no handler without a method).
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

/** A copy of what codegen reads and writes, for editing. */
function copyTree(): string {
  const dir = mkdtempSync(join(tmpdir(), "fmcp-codegen-"));
  for (const f of ["openrpc.json", "package.json", "server.json", "chatgpt-app-submission.json", "PRIVACY.md"]) cpSync(join(root, f), join(dir, f));
  for (const d of ["contract", "generated", "clients/typescript/src", "clients/openrpc"]) cpSync(join(root, d), join(dir, d), { recursive: true });
  return dir;
}

/** Edits one contract part as a person would, by its text. */
function editPart(dir: string, part: string, edit: (text: string) => string): void {
  const path = join(dir, "contract", part);
  writeFileSync(path, edit(readFileSync(path, "utf8")));
}

function codegenCheck(dir: string) {
  return spawnSync(process.execPath, ["--import", "tsx", join(root, "codegen/index.ts"), "--check", "--root", dir], { encoding: "utf8", cwd: root });
}

describe("codegen", function () {
  this.timeout(120_000);

  it("codegen:check passes on the committed tree", () => {
    const r = codegenCheck(root);
    expect(r.status, r.stderr).to.equal(0);
  });

  it("codegen:check fails after an edit of a contract part that was not regenerated", () => {
    const dir = copyTree();
    try {
      expect(codegenCheck(dir).status, "copy before the edit").to.equal(0);
      const methods = JSON.parse(readFileSync(join(dir, "contract/methods/transactions.json"), "utf8"));
      methods[0].description = methods[0].description.slice(0, 120); // shorter: stays within the token budgets
      writeFileSync(join(dir, "contract/methods/transactions.json"), JSON.stringify(methods, null, 2));
      const r = codegenCheck(dir);
      expect(r.status).to.equal(1);
      expect(r.stderr).to.contain("generated/registry.ts").and.contain("openrpc.json");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("codegen:check fails after a hand edit of openrpc.json, which is assembled from contract/", () => {
    const dir = copyTree();
    try {
      const edited = JSON.parse(readFileSync(join(dir, "openrpc.json"), "utf8"));
      edited.info.version = "9.9.9";
      writeFileSync(join(dir, "openrpc.json"), `${JSON.stringify(edited, null, 2)}\n`);
      const r = codegenCheck(dir);
      expect(r.status).to.equal(1);
      expect(r.stderr).to.contain("edit contract/, never openrpc.json").and.contain("openrpc.json");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("codegen refuses a key given twice in one object of any part, naming the file and line", () => {
    for (const part of ["document.json", "components/schemas.json", "methods/goals.json"]) {
      const dir = copyTree();
      try {
        let line = 0;
        editPart(dir, part, (text) => {
          const lines = text.split("\n");
          // The first property line of a nested object: repeated, it is a duplicate key in that object.
          line = lines.findIndex((l, i) => i > 1 && /^\s+"[\w-]+": "/.test(l));
          lines.splice(line + 1, 0, lines[line]!.endsWith(",") ? lines[line]! : `${lines[line]!},`);
          return lines.join("\n");
        });
        const r = codegenCheck(dir);
        expect(r.status, part).to.equal(1);
        expect(r.stderr, part)
          .to.contain(`contract/${part}:${line + 2}: key`)
          .and.contain("given twice in one object");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it("codegen refuses a tool declared twice or in another area's part", () => {
    const dir = copyTree();
    try {
      const goals = JSON.parse(readFileSync(join(dir, "contract/methods/goals.json"), "utf8"));
      const bills = JSON.parse(readFileSync(join(dir, "contract/methods/bills.json"), "utf8"));
      writeFileSync(join(dir, "contract/methods/bills.json"), JSON.stringify([...bills, goals[0]], null, 2));
      const r = codegenCheck(dir);
      expect(r.status).to.equal(1);
      expect(r.stderr).to.contain(`contract/methods/goals.json: method ${goals[0].name} is already declared in contract/methods/bills.json`);
      expect(r.stderr).to.contain(`contract/methods/bills.json: method ${goals[0].name} has scope area "goals"; it belongs in contract/methods/goals.json`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("codegen fails, naming the budget, when the tool surface is over a budget", () => {
    const dir = copyTree();
    try {
      // Every tool carries the same long sentence: too long a description, a repeated sentence, and many tokens.
      const filler = Array.from({ length: 40 }, (_, i) => `This sentence number ${i} repeats the same shared convention in every tool description.`).join(" ");
      const edited = { methods: [] as { description: string }[] };
      for (const f of readdirSync(join(dir, "contract/methods"))) {
        const methods = JSON.parse(readFileSync(join(dir, "contract/methods", f), "utf8")) as { description: string }[];
        for (const m of methods) m.description += ` ${filler}`;
        edited.methods.push(...methods);
        writeFileSync(join(dir, "contract/methods", f), JSON.stringify(methods, null, 2));
      }
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
