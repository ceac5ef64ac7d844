/**
 * npm run lint holds every regular expression of src/ linear (issue 41, docs/decisions.md#regex-lint):
 * the project's ESLint configuration refuses a pattern that backtracks within a match and one that is
 * retried from every start, in any file under src/, and passes their linear rewrites.
 */
import { expect } from "chai";
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function rulesHit(code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/src/statements/example.ts` });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe("the regular-expression lint rule", function () {
  this.timeout(60_000);

  it("refuses super-linear patterns in src/ and passes their linear rewrites", async () => {
    expect(await rulesHit("export const tag = (s: string) => /<([A-Z.]+)[^>]*>/.exec(s);\n")).to.include("regexp/no-super-linear-backtracking");
    expect(await rulesHit('export const trail = (s: string) => s.replace(/\\s*(?:[A-Z]{3})$/, "");\n')).to.include("regexp/no-super-linear-move");
    expect(await rulesHit('export const trail = (s: string) => s.replace(/(?<!\\s)\\s*(?:[A-Z]{3})$/, "");\n')).to.deep.equal([]);
  });
});
