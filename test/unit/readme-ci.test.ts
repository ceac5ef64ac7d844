/**
 * CI meets the project the way a newcomer does: .ci/run begins with README's "Two commands" exactly (the
 * server command run until /healthz answers at the address the README gives, then stopped), with no
 * install step before them; CI's extras come after and keep every check CI made before. A change to the
 * README's commands fails here until .ci/run changes with it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");

/** The commands of README's first code block under "## Two commands", comments dropped, `a && b` split. */
function readmeTwoCommands(readme: string): { commands: string[]; url: string } {
  const section = readme.slice(readme.indexOf("## Two commands"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const url = /serves on (http:\/\/[^\s/]+)/.exec(block)![1]!;
  const commands = block
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter(Boolean)
    .flatMap((line) => line.split("&&").map((c) => c.trim()));
  return { commands, url };
}

function ciScript() {
  const text = read(".ci/run");
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith("# >>> README"));
  const end = lines.findIndex((l) => l.startsWith("# <<< README"));
  expect(start, "a '# >>> README' marker in .ci/run").to.be.greaterThan(-1);
  expect(end).to.be.greaterThan(start);
  const code = (ls: string[]) => ls.filter((l) => l.trim() !== "" && !l.trim().startsWith("#"));
  return { text, before: code(lines.slice(0, start)), block: code(lines.slice(start + 1, end)), after: code(lines.slice(end + 1)) };
}

describe(".ci/run and the README agree", () => {
  it("the README's two commands are npm install && npm start, then npm test", () => {
    // If this changes on purpose, change .ci/run's README block with it.
    expect(readmeTwoCommands(read("README.md")).commands).to.deep.equal(["npm install", "npm start", "npm test"]);
  });

  it(".ci/run runs them verbatim, in order, the server until the README's address answers /healthz", () => {
    const { commands, url } = readmeTwoCommands(read("README.md"));
    const { block, text } = ciScript();
    expect(block.map((l) => l.replace(/^until_healthy /, ""))).to.deep.equal(commands);
    // Only the server command is wrapped, and the wrapper polls the address the README names.
    expect(block.filter((l) => l.startsWith("until_healthy "))).to.deep.equal(["until_healthy npm start"]);
    expect(text).to.include(`fetch('${url}/healthz')`);
  });

  it("nothing is installed before them (starting Postgres is not an install step)", () => {
    const { before } = ciScript();
    const installs = before.filter((l) => /\b(npm|npx|yarn|pnpm|apt-get|apt|pip3?|curl|wget)\b/.test(l));
    expect(installs).to.deep.equal([]);
  });

  it("the extras after them keep every check CI made before the README block existed", () => {
    const after = ciScript().after.join("\n");
    for (const check of [
      "REQUIRE_POSTGRES=1",
      "REQUIRE_BROWSER=1",
      "REQUIRE_CONFORMANCE=1",
      "npm test -- --rerun-skipped",
      "npm run typecheck",
      "npm run codegen:check",
      "npm run lint",
      "npm run build",
      "npm run bench:protocol -- --quick",
      "npm run bench -- --quick",
      "npm run bench -- scaleout --quick",
      "apt-get install -y -qq chromium",
    ])
      expect(after, check).to.include(check);
  });
});
