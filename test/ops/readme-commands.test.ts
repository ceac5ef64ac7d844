/**
 * Every command example of README's "Users and tokens" and "Operating it" sections, run as written by
 * bash (npx finance-mcp, curl, redirections) against a temporary database and a running server, so that
 * an example added there is tested as soon as it is written. "Users and tokens" runs first: the
 * operations need its user.
 *
 * The only changes to the text: the README's server address http://127.0.0.1:8080 becomes the test
 * server's, and the placeholder `tok_…` the id of the token the example before created. Passwords come as
 * the README says: FINANCE_MCP_PASSWORD for the CLI, standard input for curl's -u prompt (no terminal).
 *
 * npm's own start-up costs about 4 s per `npx` (measured on the 2-core CI machine), so the examples run
 * with an `npx` first on PATH that runs `npx finance-mcp …` as `node bin/finance-mcp.js …` (what npx
 * resolves it to in the checkout) and hands anything else to the real npx; one real `npx finance-mcp`
 * call checks that resolution.
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PASSWORD = "a long enough password for the readme";

/** The shell commands of a README section's sh code blocks: continuation lines joined, comments dropped. */
function sectionCommands(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README section "${heading}"`).to.be.greaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const commands: string[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, " ");
    for (const line of joined.split("\n")) {
      const command = line.replace(/\s+#\s.*$/, "").trim();
      if (command && !command.startsWith("#")) commands.push(command);
    }
  }
  return commands;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(command: string, cwd: string, env: Record<string, string>, stdin: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    // detached: a new session without a terminal, so curl -u reads its password prompt from standard input.
    const child = spawn("bash", ["-c", command], { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

describe(`README's "Users and tokens" and "Operating it" commands, as written (${engine})`, function () {
  this.timeout(600_000);
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startTestServer();
    // Inside the checkout, where `npx finance-mcp` finds this package's command (as the README assumes).
    mkdirSync(join(ROOT, ".test-results"), { recursive: true });
    dir = mkdtempSync(join(ROOT, ".test-results", "readme-"));
    mkdirSync(join(dir, "bin"));
    const realNpx = execFileSync("bash", ["-c", "command -v npx"], { encoding: "utf8" }).trim();
    const shim = `#!/bin/sh\nif [ "$1" = finance-mcp ]; then shift; exec "${process.execPath}" "${join(ROOT, "bin/finance-mcp.js")}" "$@"; fi\nexec "${realNpx}" "$@"\n`;
    writeFileSync(join(dir, "bin", "npx"), shim);
    chmodSync(join(dir, "bin", "npx"), 0o755);
  });
  after(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("every example runs and does what its comment says", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const commands = [...sectionCommands(readme, "Users and tokens"), ...sectionCommands(readme, "Operating it")];
    expect(commands.length).to.be.greaterThan(8);
    const env = {
      PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`,
      HOME: process.env.HOME ?? dir,
      DATABASE_URL: server.database.url,
      FINANCE_MCP_PASSWORD: PASSWORD,
      LOG_LEVEL: "silent",
      npm_config_update_notifier: "false",
    };
    let tokenId: string | undefined;
    let token = "";
    for (const written of commands) {
      const command = written.replaceAll("http://127.0.0.1:8080", server.url).replaceAll("tok_…", tokenId ?? "tok_…");
      const run = await bash(command, dir, env, `${PASSWORD}\n`);
      const said = `${written}\n${run.stderr.replace(/^npm warn.*\n/gm, "")}\n${run.stdout}`;
      if (engine === "postgres" && / backup /.test(command)) {
        // An online copy of a live SQLite database: on Postgres it says to use pg_dump instead.
        expect(run.code, said).to.equal(2);
        expect(run.stderr, said).to.match(/sqlite/i);
        continue;
      }
      expect(run.code, said).to.equal(0);
      if (/ user create /.test(command)) {
        expect(JSON.parse(run.stdout).email, said).to.equal(/--email (\S+)/.exec(command)![1]);
      } else if (/ token create /.test(command)) {
        expect(JSON.parse(run.stdout).token, said).to.match(/^fmcp_/);
      } else if (/^curl .* -d /.test(command)) {
        const created = JSON.parse(run.stdout);
        expect(created.token, said).to.match(/^fmcp_/);
        tokenId = created.token_id;
        token = created.token;
        expect((await server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami", params: {} }, created.token)).status, said).to.equal(200);
      } else if (/^curl .*-X DELETE /.test(command)) {
        expect(JSON.parse(run.stdout).token_id, said).to.equal(tokenId);
        expect((await server.rpc({ jsonrpc: "2.0", id: 2, method: "whoami", params: {} }, token)).status, said).to.equal(401);
      } else if (/^curl /.test(command)) {
        const listed = JSON.parse(run.stdout);
        expect(JSON.stringify(listed), said).to.include(tokenId!);
      } else if (/ config$/.test(command)) {
        expect(JSON.parse(run.stdout).databaseUrl, said).to.be.a("string");
      } else if (/ export .*> (\S+)$/.test(command)) {
        const file = join(dir, /> (\S+)$/.exec(command)![1]!);
        expect(JSON.parse(readFileSync(file, "utf8")), said).to.be.an("object");
      } else if (/ import /.test(command)) {
        expect(JSON.parse(run.stdout), said).to.have.property("imported");
      } else if (/ backup --to (\S+)/.test(command)) {
        const file = join(dir, /--to (\S+)/.exec(command)![1]!);
        expect(existsSync(file), said).to.equal(true);
        const copy = createDb(`sqlite:${file}`);
        try {
          expect((await copy("users").count({ n: "*" }))[0]!.n, said).to.satisfy((n: unknown) => Number(n) >= 2);
        } finally {
          await copy.destroy();
        }
      }
    }
    expect(tokenId, "the README creates a token over HTTP").to.be.a("string");
  });

  it("npx finance-mcp, from inside the checkout, is this package's command", async () => {
    const run = await bash("npx finance-mcp --version", dir, { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir }, "");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(run.stdout.trim(), run.stderr).to.equal(pkg.version);
  });
});
