/**
 * npm run bench -- statements [--sizes 500000,1000000,2000000,4000000]
 *
 * The time each statement parser takes on the hostile shapes of test/helpers/hostile-statements.ts (and
 * ordinary rows) at several sizes, in place (no worker), and the ratio of the largest size's time to the
 * smallest's against the ratio of their sizes: linear work keeps the two about equal, quadratic work
 * squares it (issue 41). Speed is measured here; the tests only assert bounds (docs/reliability.md,
 * "Bounded work").
 */
import { AppError } from "../../../src/errors.js";
import { parseStatement } from "../../../src/statements/parse.js";
import { hostileStatements, largeStatements } from "../../../test/helpers/hostile-statements.js";

const arg = process.argv.indexOf("--sizes");
const sizes = (arg > 0 ? process.argv[arg + 1]! : "500000,1000000,2000000,4000000").split(",").map(Number);
const shapes = { ...hostileStatements, ...Object.fromEntries(Object.entries(largeStatements).map(([k, v]) => [`${k}, ordinary rows`, v])) };

console.log(
  `| statement | ${sizes.map((s) => `${s.toLocaleString("en")} chars`).join(" | ")} | time ratio (size ratio ${sizes.at(-1)! / sizes[0]!}) | answer |`,
);
console.log(`|---|${sizes.map(() => "---:").join("|")}|---:|---|`);
for (const [name, make] of Object.entries(shapes)) {
  const times: number[] = [];
  let answer = "";
  for (const size of sizes) {
    const text = make(size);
    const start = performance.now();
    try {
      answer = `${parseStatement(text).rows.length} rows`;
    } catch (err) {
      answer = err instanceof AppError ? err.errorName : `fault: ${String(err).slice(0, 60)}`;
    }
    times.push(performance.now() - start);
  }
  const ratio = times.at(-1)! / Math.max(times[0]!, 1);
  console.log(`| ${name} | ${times.map((t) => `${t.toFixed(0)} ms`).join(" | ")} | ${ratio.toFixed(1)} | ${answer} |`);
}
