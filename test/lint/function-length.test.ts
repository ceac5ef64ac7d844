/**
 * npm run lint holds every function of src/domain to 150 lines (issue 53): the project's ESLint
 * configuration refuses a longer one there, counting neither blank lines nor comments, and leaves the
 * rest of src/ alone. A long domain function is split into named steps where a reader loses the thread.
 */
import { expect } from "chai";
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** A function of `lines` lines, its opening and closing ones included; `extra` after each statement. */
const fn = (lines: number, extra = "") =>
  `export function long(): number {\n  let n = 0;\n${Array.from({ length: lines - 4 }, (_, i) => `  n += ${i};${extra}\n`).join("")}  return n;\n}\n`;

async function rulesHit(code: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/${file}` });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe("the domain function-length lint rule", function () {
  this.timeout(60_000);

  it("refuses a function of 151 lines in src/domain, passes one of 150, and counts no blank line or comment", async () => {
    expect(await rulesHit(fn(151), "src/domain/example.ts")).to.include("max-lines-per-function");
    expect(await rulesHit(fn(150), "src/domain/example.ts")).to.deep.equal([]);
    expect(await rulesHit(fn(150, "\n\n  // why"), "src/domain/example.ts")).to.deep.equal([]);
  });

  it("leaves functions outside src/domain alone", async () => {
    expect(await rulesHit(fn(151), "src/web/example.ts")).to.deep.equal([]);
  });
});
