/**
 * Starting as a newcomer does. Bare `finance-mcp` serves, making the SQLite file's folder when it is
 * missing (a fresh clone has no data/), and its first log line says where: URL, database and engine. A
 * database path that cannot be made stops the start with one line naming the path and the reason, exit
 * code 2 and no stack. `npm run dev` (tsx watch) starts too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/finance-mcp.js");

interface Started {
  child: ChildProcess;
  first: Record<string, string>;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Spawns a server command (in its own process group) and resolves with its first log line once it is listening. */
function start(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", PORT: "0", ...env }, detached: true });
  let err = "";
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`${command} ${args.join(" ")} did not log "listening" within 150 s: ${err}`));
    }, 150_000);
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
      const line = err.split("\n").find((l) => l.startsWith("{"));
      if (line && err.slice(err.indexOf(line)).includes("\n")) {
        clearTimeout(timer);
        resolve({ child, first: JSON.parse(line) as Record<string, string>, stderr: () => err, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${err}`));
    });
  });
}

function stop(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    /* already gone */
  }
}

describe(`starting the server as a newcomer does (${engine})`, function () {
  this.timeout(240_000);
  let dir: string;
  let database: TestDatabase | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-start-"));
    if (engine === "postgres") database = await createTestDatabase();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  const url = () => (engine === "postgres" ? database!.url : `sqlite:${join(dir, "not", "yet", "there", "finance.sqlite")}`);

  it("bare finance-mcp serves (making the SQLite folder), and its first log line says URL, database and engine", async () => {
    const server = await start(process.execPath, [BIN], { DATABASE_URL: url() });
    try {
      const { first } = server;
      expect(first.event).to.equal("listening");
      expect(first.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/mcp$/);
      expect(first.engine).to.equal(engine === "postgres" ? "Postgres" : "SQLite");
      if (engine === "sqlite") {
        expect(first.database).to.equal(url());
        expect(existsSync(join(dir, "not", "yet", "there", "finance.sqlite"))).to.equal(true);
      } else {
        expect(first.database).to.equal(database!.url.replace(/\/\/([^:@/]*):[^@]*@/, "//$1:***@"));
      }
      const health = await fetch(new URL("/healthz", first.url));
      expect(health.status).to.equal(200);
    } finally {
      stop(server.child);
    }
    expect(await server.exited).to.equal(0);
  });

  it("a database path that cannot be made: one line naming it and why, exit code 2, no stack", async function () {
    const file = join(dir, "a-file");
    writeFileSync(file, "not a folder");
    const target = join(file, "data", "finance.sqlite");
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? "", DATABASE_URL: `sqlite:${target}`, PORT: "0" } });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.once("exit", (code) => resolve({ code, stderr }));
    });
    expect(run.code).to.equal(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines, run.stderr).to.have.length(1);
    expect(lines[0]).to.include(target).and.include(`${file} is a file, not a folder`);
    expect(run.stderr).not.to.match(/^\s+at /m);
    // The commands that open the database say the same.
    const migrate = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, "migrate"], { env: { PATH: process.env.PATH ?? "", DATABASE_URL: `sqlite:${target}` } });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.once("exit", (code) => resolve({ code, stderr }));
    });
    expect(migrate.code).to.equal(2);
    expect(migrate.stderr.trim().split("\n")).to.deep.equal([lines[0]]);
  });

  it("npm run dev starts the server from the sources", async () => {
    const server = await start("npm", ["run", "--silent", "dev"], {
      DATABASE_URL: engine === "postgres" ? database!.url : `sqlite:${join(dir, "dev", "finance.sqlite")}`,
    });
    try {
      expect(server.first.event).to.equal("listening");
      expect((await fetch(new URL("/healthz", server.first.url))).status).to.equal(200);
    } finally {
      stop(server.child);
      await server.exited;
    }
  });
});
