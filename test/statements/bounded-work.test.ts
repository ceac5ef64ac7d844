/**
 * Bounded work in the statement parsers (issue 41). Each hostile 4,000,000-character statement is read
 * within the worker's budget and answers rows or invalid_params: the shapes were quadratic (hours at this
 * size), so the budget, not a wall-clock threshold, is what a regression meets. The budget's own refusal,
 * and the nesting bounds with their messages. Speed at several sizes: `npm run bench -- statements`.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { AppError } from "../../src/errors.js";
import { INLINE_CHARS, PARSE_BUDGET_MS, parseStatementBounded } from "../../src/statements/bounded.js";
import { parseStatement } from "../../src/statements/parse.js";
import { MAX_DEPTH } from "../../src/statements/tree.js";
import { hostileStatements, largeStatements } from "../helpers/hostile-statements.js";
import { refused } from "../helpers/refused.js";

const ALLOWED = 4_000_000;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/statements/${name}`, import.meta.url), "utf8");

async function outcome(promise: Promise<unknown>): Promise<AppError | "rows"> {
  try {
    await promise;
    return "rows";
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

describe("statement parsers: bounded work", function () {
  this.timeout(PARSE_BUDGET_MS * 3);

  for (const [name, make] of Object.entries(hostileStatements)) {
    it(`${name}: 4,000,000 characters read within the budget, answering rows or invalid_params`, async () => {
      const statement = make(ALLOWED);
      expect(statement.length).to.be.within(ALLOWED - 200, ALLOWED);
      const answer = await outcome(parseStatementBounded(statement));
      if (answer !== "rows") {
        expect(answer.errorName).to.equal("invalid_params");
        expect(answer.details.field).to.equal("statement");
        expect(answer.message).to.not.match(/took longer/);
      }
    });
  }

  it("a worker reads a large statement exactly as the parser does in place", async () => {
    for (const make of Object.values(largeStatements)) {
      const statement = make(INLINE_CHARS * 3);
      expect(await parseStatementBounded(statement)).to.deep.equal(parseStatement(statement));
    }
  });

  it("past the budget the worker is stopped and the statement refused, naming it", async () => {
    const answer = await outcome(parseStatementBounded(largeStatements.CSV!(ALLOWED), undefined, {}, 50));
    expect(answer).to.be.instanceOf(AppError);
    expect((answer as AppError).errorName).to.equal("invalid_params");
    expect((answer as AppError).details.field).to.equal("statement");
    expect((answer as AppError).message).to.match(/took longer than 0\.05 s.*nothing was imported/);
  });

  it("an OFX 1.x file nested 10,000 deep is refused as invalid_params naming the depth", () => {
    const deep = `OFXHEADER:100\n\n<OFX>${"<STMTRS>".repeat(10_000)}<CURDEF>EUR${"</STMTRS>".repeat(10_000)}</OFX>`;
    const err = refused(() => parseStatement(deep));
    expect(err.errorName).to.equal("invalid_params");
    expect(err.message).to.include(`more than ${MAX_DEPTH} deep`);
  });

  it("a 200-deep XML statement (CAMT, OFX 2.x) is refused for its depth, not as a DOCTYPE", () => {
    const camt = fixture("statement.camt053.xml").replace("<Stmt>", `<Stmt>${"<X>".repeat(200)}${"</X>".repeat(200)}`);
    const ofx = fixture("card-2x.qfx").replace("<CCSTMTRS>", `<CCSTMTRS>${"<X>".repeat(200)}${"</X>".repeat(200)}`);
    for (const [what, text] of [
      ["CAMT", camt],
      ["OFX", ofx],
    ]) {
      const err = refused(() => parseStatement(text!));
      expect(err.errorName).to.equal("invalid_params");
      expect(err.message).to.include(`the ${what} XML nests elements more than ${MAX_DEPTH} deep`);
      expect(err.message).to.not.include("DOCTYPE");
    }
    // Within the bound a file still reads.
    expect(parseStatement(fixture("statement.camt053.xml").replace("<Stmt>", `<Stmt>${"<X>".repeat(50)}${"</X>".repeat(50)}`)).rows).to.not.be.empty;
  });
});
