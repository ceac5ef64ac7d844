/**
 * docs/adding-a-tool.md, followed to the letter in a temporary copy of the repository: its
 * `contract-method` block is added at the end of its area's part (contract/methods/<area>.json), each `file=…` block is written (the handler's block
 * replaces the stub codegen creates), and each `run` block is executed. The walkthrough cannot rot: when
 * the code it describes changes, this fails. The page's commands run on the engine of this run
 * (FINANCE_TEST_ENGINE), so its test is proven on SQLite and on Postgres.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { BUDGETS, budgetProblems, measureSurface, surfaceReport } from "../../codegen/budgets.js";
import { registryEntries } from "../../codegen/emit-registry.js";
import { loadSpec } from "../../codegen/load.js";
import { engine } from "../helpers/database.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const page = readFileSync(join(root, "docs/adding-a-tool.md"), "utf8");

interface Block {
  lang: string;
  info: string;
  body: string;
}

const blocks: Block[] = [...page.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, info: m[2]!.trim(), body: m[3]! }));

/** The tracked and new (not ignored) files of the working tree, so the walkthrough tests what is about to be committed. */
function copyRepository(to: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    if (file === "node_modules" || !existsSync(join(root, file))) continue; // a symlinked node_modules; deleted files
    cpSync(join(root, file), join(to, file), { recursive: true });
  }
  symlinkSync(realpathSync(join(root, "node_modules")), join(to, "node_modules"), "dir");
}

/** Every file of the copy (node_modules left out) with a hash of its content. */
function fileHashes(dir: string, base = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(dir, base), { withFileTypes: true })) {
    const path = base ? `${base}/${entry.name}` : entry.name;
    if (path === "node_modules") continue;
    if (entry.isDirectory()) for (const [p, h] of fileHashes(dir, path)) out.set(p, h);
    else if (entry.isFile())
      out.set(
        path,
        createHash("sha256")
          .update(readFileSync(join(dir, path)))
          .digest("hex"),
      );
  }
  return out;
}

/** What a newcomer adding a read tool may touch: the spec, generated code (generated/, the typed client, the published document, the ChatGPT submission, the token table), one handler, one domain module, one test. */
const MAY_TOUCH = [
  /^contract\/methods\/[a-z]+\.json$/,
  /^openrpc\.json$/,
  /^docs\/tool-surface\.md$/,
  /^generated\//,
  /^chatgpt-app-submission\.json$/,
  /^clients\/typescript\/src\/(types|index)\.ts$/,
  /^clients\/openrpc\/openrpc\.json$/,
  /^src\/tools\/[^/]+\/[^/]+\.ts$/,
  /^src\/domain\//,
  /^test\/tools\//,
];

describe("docs/adding-a-tool.md, followed in a temporary copy", function () {
  // Codegen, a typecheck and four test files on a busy two-core machine.
  this.timeout(600_000);
  let dir: string;

  before(function () {
    dir = mkdtempSync(join(tmpdir(), "finance-mcp-walkthrough-"));
    copyRepository(dir);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("has the blocks a walkthrough needs: one method, the files it creates, the commands", () => {
    expect(blocks.filter((b) => b.info === "contract-method")).to.have.length(1);
    expect(blocks.filter((b) => b.info.startsWith("file=")).length).to.be.at.least(3);
    expect(blocks.filter((b) => b.info === "run").length).to.be.at.least(2);
  });

  it("names its tool and files as no real tool would, so that following it never overwrites one", () => {
    const method = JSON.parse(blocks.find((b) => b.info === "contract-method")!.body).name as string;
    expect(method).to.match(/^walkthrough_/);
    const files = blocks.filter((b) => b.info.startsWith("file=")).map((b) => b.info.slice("file=".length));
    for (const file of files) {
      expect(file, "a file named for the walkthrough").to.match(/walkthrough[-_]/);
      expect(existsSync(join(root, file)), `${file} is not in the repository`).to.equal(false);
    }
  });

  it("works when followed step by step, touching the spec, generated code, one handler, one domain module and one test only (the four hand-written files)", () => {
    const before = fileHashes(dir);
    const env = { ...process.env, FINANCE_TEST_ENGINE: engine, NODE_OPTIONS: "" };
    let method = "";
    for (const block of blocks) {
      if (block.info === "contract-method") {
        const added = JSON.parse(block.body) as { name: string; "x-scope": string };
        method = added.name;
        const spec = JSON.parse(readFileSync(join(dir, "openrpc.json"), "utf8"));
        expect(
          spec.methods.map((m: { name: string }) => m.name),
          "the page adds a tool the spec does not have yet",
        ).not.to.include(method);
        // The area's part, as the page says: the scope's second word.
        const partPath = join(dir, "contract/methods", `${added["x-scope"].split(":")[1]}.json`);
        const part = JSON.parse(readFileSync(partPath, "utf8")) as unknown[];
        part.push(added);
        writeFileSync(partPath, `${JSON.stringify(part, null, 2)}\n`);
      } else if (block.info.startsWith("file=")) {
        const file = join(dir, block.info.slice("file=".length));
        if (file.includes(`/src/tools/`)) expect(existsSync(file), `codegen created the stub ${file}`).to.equal(true);
        execFileSync("mkdir", ["-p", dirname(file)]);
        writeFileSync(file, block.body);
      } else if (block.info === "run") {
        for (const line of block.body
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean)) {
          try {
            execFileSync("bash", ["-c", line], { cwd: dir, env, encoding: "utf8", stdio: "pipe" });
          } catch (err) {
            const e = err as { stdout?: string; stderr?: string };
            throw new Error(`"${line}" failed in ${dir}:\n${(e.stdout ?? "").slice(-4000)}\n${(e.stderr ?? "").slice(-2000)}`, { cause: err });
          }
        }
      }
    }
    expect(method).to.equal("walkthrough_payee_counts");
    // The tool is in the registry codegen wrote into the copy.
    expect(readFileSync(join(dir, "generated/registry.ts"), "utf8")).to.include(`"${method}"`);
    // Nothing else had to change: no registration list, no second domain helper, no docs table.
    const after = fileHashes(dir);
    const touched = [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f)).sort();
    expect(touched.filter((f) => !MAY_TOUCH.some((re) => re.test(f)))).to.deep.equal([]);
    expect(touched.filter((f) => f.startsWith("src/tools/"))).to.have.length(1);
    expect(touched.filter((f) => f.startsWith("src/domain/"))).to.have.length(1);
    expect(touched.filter((f) => f.startsWith("test/"))).to.have.length(1);
  });

  it("leaves headroom after the page's tool for a next tool as large as any one may be (docs/decisions.md#surface-after-wave-four)", async () => {
    const spec = await loadSpec(join(dir, "openrpc.json"));
    expect(spec.methods.map((m) => m.name)).to.include("walkthrough_payee_counts");
    const m = measureSurface(registryEntries(spec));
    expect(budgetProblems(registryEntries(spec), spec.instructions)).to.deep.equal([]);
    // The next tool fits even at the per-tool ceiling: average plus this much headroom.
    expect(m.headroom, surfaceReport(m)).to.be.at.least(BUDGETS.maxToolTokens - BUDGETS.averageToolTokens);
  });
});
