/**
 * The tool surface a model reads (issue 13): codegen refuses a spec over its token budgets or prose
 * rules (codegen/surface.ts), the server instructions come from the spec, and tools/list schemas are
 * 2020-12 JSON Schema (no draft-07 $schema; ajv's 2020-12 build compiles every one).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { instructions, tools } from "../../generated/registry.js";
import { loadSpec } from "../../codegen/load.js";
import { INSTRUCTIONS } from "../../src/mcp/lifecycle.js";

const specPath = new URL("../../openrpc.json", import.meta.url);
const original = () => JSON.parse(readFileSync(specPath, "utf8"));
async function load(edit: (spec: any) => void) {
  const spec = original();
  edit(spec);
  const file = join(mkdtempSync(join(tmpdir(), "fmcp-surface-")), "openrpc.json");
  writeFileSync(file, JSON.stringify(spec));
  return loadSpec(file);
}

describe("contract: the tool surface's budgets and rules", function () {
  this.timeout(30_000);

  it("the spec as committed meets its budgets and rules", async () => {
    await load(() => undefined);
  });

  it("codegen refuses a spec over the model-visible or the whole token budget, naming the budget", async () => {
    let err = await load((s) => (s.info["x-surface-budgets"].modelVisibleTokens = 1000)).catch((e: Error) => e);
    expect(String(err)).to.match(/as a model sees it is \d+ tokens, over the budget of 1000 \(info\.x-surface-budgets\.modelVisibleTokens\)/);
    err = await load((s) => (s.info["x-surface-budgets"].wholeTokens = 1000)).catch((e: Error) => e);
    expect(String(err)).to.match(/with output schemas is \d+ tokens, over the budget of 1000/);
  });

  it("codegen refuses a description over 1,024 characters, instructions over 2,048, and a sentence of 8+ words in 3 descriptions", async () => {
    let err = await load((s) => (s.methods[0].description += " x".repeat(600))).catch((e: Error) => e);
    expect(String(err)).to.match(/description of \d+ characters, at most 1024/);
    err = await load((s) => (s.info["x-instructions"] += " y".repeat(100))).catch((e: Error) => e);
    expect(String(err)).to.match(/x-instructions: \d+ characters, at most 2048/);
    const shared = "Always remember that every amount here is in dollars only.";
    err = await load((s) => s.methods.slice(0, 3).forEach((m: any) => (m.description += ` ${shared}`))).catch((e: Error) => e);
    expect(String(err)).to.match(/is in 3 descriptions .*say it once, in info\.x-instructions/);
    // Two descriptions sharing it are allowed.
    await load((s) => s.methods.slice(0, 2).forEach((m: any) => (m.description += ` ${shared}`)));
  });

  it("serves info.x-instructions as the server instructions", () => {
    expect(INSTRUCTIONS).to.equal(original().info["x-instructions"]).and.equal(instructions);
  });

  it("tools/list schemas declare no draft-07 $schema and compile with ajv's 2020-12 build", () => {
    const ajv = new Ajv2020.default({ strict: false });
    addFormats.default(ajv);
    for (const t of tools) {
      for (const schema of [t.inputSchema, t.outputSchema]) {
        expect(schema, t.name).to.not.have.property("$schema");
        expect(() => ajv.compile(schema), t.name).to.not.throw();
      }
    }
  });
});
