/**
 * A wide CSV is read in work linear in its cells (issue 51, finding 6: a statement with many columns per row
 * grew ×1.7 then ×3.9 per doubling; 400,000 characters of text columns took 50 s). Content detection compared
 * every pair of columns of a kind (money columns for a debit/credit pair or a running balance, date columns
 * for the booking date, names for a payer/payee split), so its work grew with the square (and, for names,
 * the cube) of the width. Counted, not timed: the detector's row steps (contentWork) while the whole
 * statement is read, as the width (then the rows) doubles, grow at most ×2.2 per doubling.
 */
import { expect } from "chai";
import { contentWork } from "../../src/statements/columns-by-content.js";
import { parseStatement } from "../../src/statements/parse.js";

/** Headerless semicolon files: a date, a payee and an amount, then `cols - 3` columns of one shape. */
const shapes: Record<string, (row: number, col: number, rows: number) => string> = {
  // Each row fills one of many money columns: every pair of them is a debit/credit candidate read to the end.
  "money, one cell per row": (r, c, rows) => (c % rows === r ? `${(c % 90) + 1}.25` : ""),
  "money, full": (r, c) => `${((r * 31 + c * 17) % 9000) / 100 + 1}.25`,
  // Charges of one sign beside columns that may be balances: every balance against every charge is a fee candidate.
  "money beside charges": (r, c) =>
    c % 5 === 0 ? `${((r * 31 + c * 17) % 9000) / 100 + 1}.25` : c % 5 === 1 ? (r % 3 === 0 ? "0.50" : "") : `${1000 + r * 3 + c}.00`,
  names: (r, c) => `Name ${String.fromCharCode(65 + ((r * 7 + c) % 26))}${String.fromCharCode(65 + ((r * 3 + c * 5) % 26))} ${r % 11}`,
  "dates, the same on a row": (r) => `${String((r % 28) + 1).padStart(2, "0")}.10.2026`,
  mixed: (r, c) =>
    [
      `${((r * 31 + c * 17) % 9000) / 100 + 1}.25`,
      `Nm ${String.fromCharCode(65 + ((r * 7 + c) % 26))}q`,
      `${String(((r + c) % 28) + 1).padStart(2, "0")}.10.2026`,
      "",
    ][c % 4]!,
};

function statement(shape: (row: number, col: number, rows: number) => string, cols: number, rows: number): string {
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells = [`2026-10-${String((r % 28) + 1).padStart(2, "0")}`, `Shop ${r}`, `-${(r % 97) + 1}.50`];
    for (let c = 3; c < cols; c++) cells.push(shape(r, c, rows));
    lines.push(cells.join(";"));
  }
  return `${lines.join("\n")}\n`;
}

/** The detector's row steps for reading the statement (its answer or refusal does not matter here). */
function stepsOf(text: string): number {
  const before = contentWork.steps;
  try {
    parseStatement(text);
  } catch {
    // A refusal (no amount column found, a pair nothing tells apart) is still work done.
  }
  return contentWork.steps - before;
}

function growth(sizes: readonly number[], make: (size: number) => string): number[] {
  const steps = sizes.map((s) => stepsOf(make(s)));
  return steps.slice(1).map((s, i) => s / steps[i]!);
}

describe("statement parsers: a wide CSV is read in work linear in its cells", function () {
  this.timeout(120_000);

  for (const [name, shape] of Object.entries(shapes)) {
    it(`${name}: 256 to 2,048 columns of 10 rows, at most ×2.2 per doubling of the width`, () => {
      const ratios = growth([256, 512, 1024, 2048], (cols) => statement(shape, cols, 10));
      for (const r of ratios) expect(r, `growth per doubling: ${ratios.map((x) => x.toFixed(2)).join(", ")}`).to.be.at.most(2.2);
    });

    it(`${name}: 100 to 800 rows of 128 columns, at most ×2.2 per doubling of the rows`, () => {
      const ratios = growth([100, 200, 400, 800], (rows) => statement(shape, 128, rows));
      for (const r of ratios) expect(r, `growth per doubling: ${ratios.map((x) => x.toFixed(2)).join(", ")}`).to.be.at.most(2.2);
    });
  }
});
