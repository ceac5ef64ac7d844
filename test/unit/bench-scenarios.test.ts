/**
 * One benchmark entry point (issue 42): scripts/bench.ts takes named scenarios (scripts/bench/scenarios.ts),
 * every other scenario is a module of its own under scripts/bench/scenarios/, no other benchmark script
 * sits in scripts/, and every benchmark command the docs, package.json and CI give names a scenario that
 * exists. A scenario added, renamed or removed fails here until the list, the module and the docs agree.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { chooseScenario, DEFAULT_SCENARIO, SCENARIOS } from "../../scripts/bench/scenarios.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, "utf8");
const names = SCENARIOS.map((s) => s.name);

/** The files a newcomer reads for commands: README, docs/ (not the dated history), scripts/README.md, CI. */
function commandSources(): { path: string; text: string }[] {
  const docs = readdirSync(`${ROOT}docs`).filter((f) => f.endsWith(".md"));
  return ["README.md", "scripts/README.md", ".ci/run", ...docs.map((f) => `docs/${f}`)].map((path) => ({ path, text: read(path) }));
}

describe("the benchmark's one entry point and its scenarios", () => {
  it("chooses the scenario from a first argument or --scenario, and leaves the rest to it", () => {
    expect(chooseScenario([]).scenario.name).to.equal(DEFAULT_SCENARIO);
    expect(chooseScenario(["--quick"])).to.deep.include({ rest: ["--quick"] });
    expect(chooseScenario(["--quick"]).scenario.name).to.equal("tools");
    const positional = chooseScenario(["scaleout", "--quick"]);
    expect([positional.scenario.name, positional.rest]).to.deep.equal(["scaleout", ["--quick"]]);
    const flag = chooseScenario(["--quick", "--scenario", "protocol", "--duration", "2"]);
    expect([flag.scenario.name, flag.rest]).to.deep.equal(["protocol", ["--quick", "--duration", "2"]]);
    expect(chooseScenario(["--scenario=statements"]).scenario.name).to.equal("statements");
    // A value of an option is not a scenario's name.
    expect(chooseScenario(["--only", "whoami"])).to.deep.include({ rest: ["--only", "whoami"] });
  });

  it("refuses an unknown scenario, or --scenario without a name, listing the scenarios", () => {
    expect(() => chooseScenario(["nope"])).to.throw(/no benchmark scenario named "nope"[\s\S]*protocol/);
    expect(() => chooseScenario(["--scenario"])).to.throw(/--scenario needs a name[\s\S]*scaleout/);
    expect(() => chooseScenario(["--scenario", "--quick"])).to.throw(/--scenario needs a name/);
  });

  it("every scenario but the default has its module under scripts/bench/scenarios/, and every module there is a scenario", () => {
    expect(new Set(names).size, "scenario names are unique").to.equal(names.length);
    for (const s of SCENARIOS) {
      expect(s.summary, `${s.name}: one line for --list`).to.match(/^[^\n]{10,200}$/);
      if (s.name === DEFAULT_SCENARIO) {
        expect(s.load, "the default scenario is scripts/bench.ts itself").to.equal(undefined);
        continue;
      }
      expect(String(s.load), `${s.name} loads its own module`).to.include(`./scenarios/${s.name}.js`);
      expect(existsSync(`${ROOT}scripts/bench/scenarios/${s.name}.ts`), `scripts/bench/scenarios/${s.name}.ts`).to.equal(true);
    }
    const modules = readdirSync(`${ROOT}scripts/bench/scenarios`).map((f) => f.replace(/\.ts$/, ""));
    expect(modules.sort()).to.deep.equal(names.filter((n) => n !== DEFAULT_SCENARIO).sort());
  });

  it("scripts/ holds one benchmark entry point, and scripts/README.md names every script", () => {
    const top = readdirSync(`${ROOT}scripts`, { withFileTypes: true }).filter((e) => e.isFile() && /\.(ts|mjs)$/.test(e.name));
    expect(top.filter((e) => /bench|profile/.test(e.name)).map((e) => e.name)).to.deep.equal(["bench.ts"]);
    const readme = read("scripts/README.md");
    for (const e of top) expect(readme, `scripts/README.md names ${e.name}`).to.include(`\`${e.name}\``);
    for (const name of names) expect(readme, `scripts/README.md names the scenario ${name}`).to.include(`\`${name}\``);
  });

  it("package.json's benchmark commands run scripts/bench.ts", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    const bench = Object.entries(scripts).filter(([name]) => name.startsWith("bench"));
    expect(bench.map(([name]) => name)).to.include.members(["bench", "bench:protocol"]);
    for (const [name, command] of bench) {
      const m = /^tsx scripts\/bench\.ts(?: (\S+))?/.exec(command);
      expect(m, `npm run ${name}: ${command}`).to.not.equal(null);
      if (m![1]) expect(names, `npm run ${name}'s scenario`).to.include(m![1]);
    }
  });

  it("every benchmark command in the README, docs/ and CI names a scenario that exists, through npm run bench", () => {
    for (const { path, text } of commandSources()) {
      for (const m of text.matchAll(/npm run bench -- (?:--scenario[ =])?([a-z][\w-]*)/g)) expect(names, `${path}: "${m[0]}"`).to.include(m[1]);
      // No benchmark run by another path (a removed one-off script is named only with its history).
      for (const line of text.split("\n")) {
        const direct = /(?:npx tsx|node --import tsx) scripts\/(?!bench\.ts)\S*/.exec(line);
        if (direct && /bench|profile/.test(direct[0])) expect(line, `${path}: run it through npm run bench`).to.match(/since removed|docs\/history\//);
      }
    }
  });

  it("the history a doc points to for a removed benchmark exists", () => {
    for (const { path, text } of commandSources())
      for (const m of text.matchAll(/docs\/history\/(bench-[\w-]+\.md)/g))
        expect(existsSync(`${ROOT}docs/history/${m[1]}`), `${path} names docs/history/${m[1]}`).to.equal(true);
  });

  it("scripts/bench.ts --list prints every scenario with its line, whatever else is on the command line", () => {
    const list = spawnSync(process.execPath, ["--import", "tsx", "scripts/bench.ts", "--quick", "--list"], { cwd: ROOT, encoding: "utf8" });
    expect(list.status, list.stderr).to.equal(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines.map((l) => l.split(/\s+/)[0])).to.deep.equal(names);
    for (const s of SCENARIOS) expect(list.stdout).to.include(s.summary);
  });
});
