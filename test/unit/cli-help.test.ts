/**
 * The finance-mcp command introduces itself: --help, -h and help list every command with its purpose and
 * an example; help <command> and <command> --help show its options, defaults and environment variables;
 * --version prints the package's version; a mistyped command or option names the nearest one and the
 * list, with exit code 2. Run as a child process (node bin/finance-mcp.js), as a person would.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { COMMANDS } from "../../src/cli/commands.js";
import { commandHelp } from "../../src/cli/help.js";
import { CONFIG_VARIABLES } from "../../src/config.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));
const VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as { version: string }).version;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", DATABASE_URL: "sqlite::memory:" }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("finance-mcp --help, help <command>, --version, and mistakes", function () {
  this.timeout(120_000);

  it("--help, -h and help list every command with its purpose and an example", async () => {
    const runs = await Promise.all([cli(["--help"]), cli(["-h"]), cli(["help"])]);
    for (const run of runs) {
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.equal(runs[0]!.stdout);
    }
    for (const c of COMMANDS) {
      expect(runs[0]!.stdout).to.match(new RegExp(`^  ${escape(c.name)} +${escape(c.summary)}$`, "m"));
      expect(runs[0]!.stdout).to.include(`e.g. ${c.example}`);
    }
  });

  it("help <command> and <command> --help show its options, defaults and environment variables", async () => {
    const [viaHelp, viaFlag, viaShort] = await Promise.all([
      cli(["help", "token", "create"]),
      cli(["token", "create", "--help"]),
      cli(["token", "create", "-h"]),
    ]);
    expect(viaHelp.code, viaHelp.stderr).to.equal(0);
    expect(viaFlag.stdout).to.equal(viaHelp.stdout);
    expect(viaShort.stdout).to.equal(viaHelp.stdout);
    const text = viaHelp.stdout;
    for (const option of ["--email EMAIL", "--scopes A,B", "--name NAME", "--expires-in-days D"]) expect(text).to.include(option);
    expect(text).to.match(/--expires-in-days D +days until it expires \(default: 90\)/);
    expect(text).to.match(/DATABASE_URL +.*\(default: sqlite:data\/finance\.sqlite\)/);
    expect(text).to.match(/RATE_LIMIT_TOKENS_PER_HOUR +.*\(default: 10\)/);
    expect(text).to.include("FINANCE_MCP_PASSWORD");
    const serve = await cli(["serve", "--help"]);
    expect(serve.code).to.equal(0);
    expect(serve.stdout)
      .to.match(/PORT +.*\(default: 8080\)/)
      .and.match(/HOST +.*\(default: 127\.0\.0\.1\)/);
  });

  it("a group's --help (token --help, help token) lists the group's commands with an example each", async () => {
    const [viaFlag, viaHelp] = await Promise.all([cli(["token", "--help"]), cli(["help", "token"])]);
    expect(viaFlag.code, viaFlag.stderr).to.equal(0);
    expect(viaHelp.stdout).to.equal(viaFlag.stdout);
    for (const command of ["token create", "token list", "token revoke"]) expect(viaFlag.stdout).to.include(`  ${command}`);
    expect(viaFlag.stdout).to.include("e.g. finance-mcp token revoke");
  });

  it("every command's help names only real environment variables and says what each option defaults to or that it is required", () => {
    for (const c of COMMANDS) {
      const text = commandHelp(c);
      expect(text).to.include(`Usage: finance-mcp ${c.name}`);
      for (const e of c.env) if (/^[A-Z_]+$/.test(e.name)) expect([...CONFIG_VARIABLES, "FINANCE_MCP_PASSWORD"], `${c.name}: ${e.name}`).to.include(e.name);
      for (const o of c.options) expect(o.required || o.default !== undefined || o.type === "boolean", `${c.name} --${o.name}`).to.equal(true);
    }
  });

  it("--version prints the package's version", async () => {
    const run = await cli(["--version"]);
    expect(run.code).to.equal(0);
    expect(run.stdout.trim()).to.equal(VERSION);
  });

  it("a mistyped command names the nearest command and lists them all, exit code 2", async () => {
    const [two, one, none] = await Promise.all([cli(["tokn", "create"]), cli(["servee"]), cli(["xyzzy"])]);
    for (const run of [two, one, none]) {
      expect(run.code).to.equal(2);
      expect(run.stdout).to.equal("");
      for (const c of COMMANDS) expect(run.stderr).to.include(c.name);
    }
    expect(two.stderr).to.include('Did you mean "token create"?');
    expect(one.stderr).to.include('Did you mean "serve"?');
    expect(none.stderr).not.to.include("Did you mean");
  });

  it("a mistyped option names the nearest option of the command and its list, exit code 2; so does a missing required one", async () => {
    const [option, global, missing] = await Promise.all([cli(["token", "list", "--emial", "a@b.test"]), cli(["--verison"]), cli(["backup"])]);
    expect(option.code).to.equal(2);
    expect(option.stderr).to.include("unknown option --emial").and.include("Did you mean --email?");
    expect(global.code).to.equal(2);
    expect(global.stderr).to.include("Did you mean --version?");
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include("--to is required");
  });
});
