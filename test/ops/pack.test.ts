/**
 * `npm pack` makes a package that installs and starts in a clean folder: the compiled build, the
 * contract, migrations and knowledge base found from the installed package's root, and no tsx (nor any
 * other development dependency) needed at run time.
 *
 * Offline and bounded: the tarball's dependencies come from npm's cache (--prefer-offline). Its install
 * scripts are skipped and better-sqlite3's compiled addon is copied from this checkout: that step is
 * better-sqlite3's own (a prebuilt download, unreachable here, or a compile of SQLite taking minutes),
 * the same version for the same Node, not something this package does.
 */
import { execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

describe(`npm pack installs and starts elsewhere (${engine})`, function () {
  this.timeout(240_000);
  let dir: string;
  let database: TestDatabase;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-pack-"));
    database = await createTestDatabase();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  it("packs, installs without development dependencies, and serves /readyz and rpc.discover", async () => {
    const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
    await run("npm", ["pack", "--pack-destination", dir], { cwd: ROOT, env: npmEnv, timeout: 120_000 });
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
    expect(tarball, "npm pack wrote a tarball").to.be.a("string");

    const app = join(dir, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "pack-test", version: "1.0.0", private: true }));
    await run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-package-lock", join(dir, tarball!)], {
      cwd: app,
      env: npmEnv,
      timeout: 180_000,
    });
    const installed = join(app, "node_modules", "finance-mcp");
    expect(existsSync(join(installed, "dist", "src", "main.js"))).to.equal(true);
    expect(existsSync(join(installed, "src")), "sources are not shipped").to.equal(false);
    expect(existsSync(join(app, "node_modules", "tsx")), "tsx is not installed with the package").to.equal(false);
    expect(existsSync(join(app, "node_modules", "typescript"))).to.equal(false);
    const addon = join("build", "Release", "better_sqlite3.node");
    mkdirSync(join(app, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true });
    copyFileSync(join(ROOT, "node_modules", "better-sqlite3", addon), join(app, "node_modules", "better-sqlite3", addon));

    // Started from another working directory, through the package's bin, on a random port.
    const work = join(dir, "work");
    mkdirSync(work);
    const databaseUrl = engine === "sqlite" ? `sqlite:${join(work, "finance.sqlite")}` : database.url;
    const child = spawn(process.execPath, [join(app, "node_modules", ".bin", "finance-mcp"), "serve"], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", PORT: "0", HOST: "127.0.0.1", DATABASE_URL: databaseUrl },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the installed server did not listen within 60 s")), 60_000);
        let text = "";
        child.stderr!.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          const m = /"url":"http:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
        child.once("exit", (code) => reject(new Error(`the installed server exited with ${code}: ${text}`)));
      });
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).to.equal(200);
      const discover = await fetch(`http://127.0.0.1:${port}/api/v1/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "rpc.discover" }),
      });
      const body = (await discover.json()) as { result: { methods: { name: string }[] } };
      expect(body.result.methods.map((m) => m.name)).to.include("create_transaction");

      // The installed command makes a user and a token; the knowledge base was seeded from the package's kb/.
      const cliEnv = { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl, LOG_LEVEL: "silent", FINANCE_MCP_PASSWORD: "a long enough password" };
      const bin = join(app, "node_modules", ".bin", "finance-mcp");
      await run(process.execPath, [bin, "user", "create", "--email", "pack@example.test"], { cwd: work, env: cliEnv, timeout: 60_000 });
      const token = JSON.parse(
        (
          await run(process.execPath, [bin, "token", "create", "--email", "pack@example.test", "--scopes", "read:knowledge", "--name", "pack"], {
            cwd: work,
            env: cliEnv,
            timeout: 60_000,
          })
        ).stdout,
      ).token as string;
      const search = await fetch(`http://127.0.0.1:${port}/api/v1/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "search_product_knowledge", params: { query: "how do I create a token" } }),
      });
      const hits = ((await search.json()) as { result: { results: unknown[] } }).result.results;
      expect(hits.length).to.be.greaterThan(0);
      // DATABASE_URL's relative default would land in the working directory, never in the package.
      if (engine === "sqlite") expect(existsSync(join(work, "finance.sqlite"))).to.equal(true);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });

  it("npx of the packed tarball starts the server (as the registry entry's runtimeHint says)", async () => {
    const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
    let tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
    if (!tarball) {
      await run("npm", ["pack", "--pack-destination", dir], { cwd: ROOT, env: npmEnv, timeout: 120_000 });
      tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"))!;
    }
    const spec = join(dir, tarball);
    const work = join(dir, "npx-work");
    mkdirSync(work, { recursive: true });
    const npx = ["--yes", "--prefer-offline", "--ignore-scripts", "--package", spec, "--", "finance-mcp"];
    // First run: npx installs the package into its cache; --version loads no database driver.
    const version = await run("npx", [...npx, "--version"], { cwd: work, env: npmEnv, timeout: 180_000 });
    expect(version.stdout.trim()).to.match(/\d+\.\d+\.\d+/);
    // better-sqlite3's compiled addon, as in the test above (its install script was skipped): into npx's install.
    const cache = (await run("npm", ["config", "get", "cache"], { env: npmEnv })).stdout.trim();
    const installs = readdirSync(join(cache, "_npx"))
      .map((d) => join(cache, "_npx", d, "node_modules"))
      .filter((d) => existsSync(join(d, "finance-mcp")) && existsSync(join(d, "better-sqlite3")))
      .sort((a, b) => statSync(join(b, "finance-mcp")).mtimeMs - statSync(join(a, "finance-mcp")).mtimeMs);
    expect(installs.length, "npx installed the package").to.be.greaterThan(0);
    const addon = join("build", "Release", "better_sqlite3.node");
    mkdirSync(join(installs[0]!, "better-sqlite3", "build", "Release"), { recursive: true });
    copyFileSync(join(ROOT, "node_modules", "better-sqlite3", addon), join(installs[0]!, "better-sqlite3", addon));

    const databaseUrl = engine === "sqlite" ? `sqlite:${join(work, "finance.sqlite")}` : database.url;
    const child = spawn("npx", [...npx, "serve"], {
      cwd: work,
      env: { ...npmEnv, PORT: "0", HOST: "127.0.0.1", DATABASE_URL: databaseUrl },
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("npx finance-mcp serve did not listen within 120 s")), 120_000);
        let text = "";
        child.stderr!.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          const m = /"url":"http:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
        child.once("exit", (code) => reject(new Error(`npx finance-mcp serve exited with ${code}: ${text}`)));
      });
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).to.equal(200);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  });
});
