/**
 * npm run bench -- profile FILE.cpuprofile… [--top 25] [--areas [--from µs --to µs]]
 *
 * Summarises V8 CPU profiles (node --cpu-prof, as `npm run bench -- --profile DIR` and the protocol and
 * scaleout scenarios' --profile write them): by default self time per area (our src/, generated/, each
 * dependency, node internals, GC) and per function, and our functions inclusive (scripts/bench/profile-summary.ts);
 * with --areas the CPU by job (JSON, validation, the Postgres driver, Redis, HTTP, logging, our code),
 * optionally cut to a window of the profile's clock (scripts/bench/profile-areas.ts).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { areasOf } from "../profile-areas.js";
import { summarize, type Profile } from "../profile-summary.js";

const { values, positionals } = parseArgs({
  options: { top: { type: "string", default: "25" }, areas: { type: "boolean", default: false }, from: { type: "string" }, to: { type: "string" } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error("bench profile: name one or more .cpuprofile files");
  process.exitCode = 2;
}
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  if (values.areas) {
    const window = values.from && values.to ? { from: Number(values.from), to: Number(values.to) } : undefined;
    const a = areasOf(profile, window);
    console.log(`${file}: ${(a.cpuMs / 1000).toFixed(1)} s of CPU in ${(a.wallMs / 1000).toFixed(1)} s`);
    for (const x of a.areas) console.log(`  ${(x.share * 100).toFixed(1).padStart(5)} %  ${x.area}`);
    continue;
  }
  const s = summarize(profile, Number(values.top));
  console.log(`\n${file}: ${(s.totalMs / 1000).toFixed(1)} s of CPU (idle excluded)`);
  console.log("  by area:");
  for (const x of s.byArea.slice(0, 20)) console.log(`    ${(x.share * 100).toFixed(1).padStart(5)} %  ${x.area}`);
  console.log("  by function (self time):");
  for (const f of s.byFunction) console.log(`    ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.fn}  ${f.where}`);
  console.log("  our functions, inclusive (with everything they call):");
  for (const f of s.ownInclusive) console.log(`    ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.fn}  ${f.where}`);
}
