/**
 * Configuration checked at start: every problem reported at once, naming the variable and what it
 * expects; `finance-mcp config` prints the effective configuration without secrets; a bad variable stops
 * `finance-mcp serve` before it listens.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createTestDatabase, engine } from "../helpers/database.js";
import { startServerProcess } from "../helpers/process.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe("configuration", function () {
  this.timeout(120_000);

  it("accepts the defaults and valid values", () => {
    expect(problems({})).to.deep.equal([]);
    const c = loadConfig({
      PORT: "0",
      DATABASE_URL: "postgresql://app:pw@db.internal:5432/finance",
      ALLOWED_HOSTS: "finance.example.com, 10.0.0.7,[::1]",
      ALLOWED_ORIGINS: "https://claude.ai",
      LOG_FORMAT: "pretty",
      METRICS: "on",
      SHUTDOWN_GRACE_SECONDS: "30",
      DATABASE_POOL_MAX: "24",
    });
    expect(c).to.include({ port: 0, logFormat: "pretty", metrics: "on", shutdownGraceSeconds: 30, databasePoolMax: 24 });
    expect(loadConfig({}).databasePoolMax).to.equal(10);
    expect(c.allowedHosts).to.deep.equal(["finance.example.com", "10.0.0.7", "[::1]"]);
  });

  it(`a server process sizes its database pool with DATABASE_POOL_MAX (${engine}: SQLite keeps its one connection)`, async () => {
    const database = await createTestDatabase();
    try {
      const server = await startServerProcess(database.url, { DATABASE_POOL_MAX: "7", METRICS: "on", METRICS_TOKEN: "" });
      try {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        expect(/^finance_mcp_db_pool_max (\d+)$/m.exec(text)?.[1], text.slice(0, 300)).to.equal(engine === "sqlite" ? "1" : "7");
      } finally {
        await server.stop();
      }
    } finally {
      await database.drop();
    }
  });

  it("names each bad variable and what it expects, all at once", () => {
    const found = problems({
      PORT: "70000",
      WRITE_TOOLS: "sometimes",
      DATABASE_URL: "mysql://localhost/db",
      VALIDATE_RESULTS: "yes",
      MAX_BODY_BYTES: "-5",
      RATE_LIMIT_MCP_PER_MINUTE: "1.5",
      ALLOWED_ORIGINS: "claude.ai",
      ALLOWED_HOSTS: "bad host!",
      LOG_LEVEL: "debug",
      LOG_FORMAT: "xml",
      SHUTDOWN_GRACE_SECONDS: "9999",
      METRICS: "yes",
      HOST: "not a host",
      DATABASE_POOL_MAX: "0",
    });
    const expected = [
      'PORT must be an integer from 0 to 65535, got "70000"',
      'WRITE_TOOLS must be one of enabled, disabled, got "sometimes"',
      'DATABASE_URL must be sqlite:<path> or postgres://[user[:password]@]host[:port]/database, got "mysql://localhost/db"',
      'VALIDATE_RESULTS must be one of true, false, got "yes"',
      'MAX_BODY_BYTES must be an integer >= 1, got "-5"',
      'RATE_LIMIT_MCP_PER_MINUTE must be an integer >= 1, got "1.5"',
      'ALLOWED_ORIGINS must be a comma-separated list of origins such as https://example.com (or *); not valid: claude.ai, got "claude.ai"',
      'ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses (or *); not valid: bad host!, got "bad host!"',
      'LOG_LEVEL must be one of silent, error, info, got "debug"',
      'LOG_FORMAT must be one of json, pretty, got "xml"',
      'SHUTDOWN_GRACE_SECONDS must be an integer from 0 to 3600, got "9999"',
      'METRICS must be one of off, on, got "yes"',
      'HOST must be an IP address or a host name to listen on, got "not a host"',
      'DATABASE_POOL_MAX must be an integer from 1 to 1000, got "0"',
    ];
    expect([...found].sort()).to.deep.equal([...expected].sort());
  });

  it("never shows a secret in a message: a malformed Postgres URL is masked, short secrets are named only", () => {
    const found = problems({ DATABASE_URL: "postgres://app:hunter2-secret@", TOKEN_PEPPER: "short-pepper", METRICS_TOKEN: "tiny" });
    expect(found.join("\n")).not.to.include("hunter2-secret");
    expect(found.join("\n")).not.to.include("short-pepper");
    expect(found.join("\n")).not.to.include('tiny"');
    expect(found).to.include("TOKEN_PEPPER must be at least 16 characters when set (its value is not shown)");
    expect(found).to.include("METRICS_TOKEN must be at least 16 characters when set (its value is not shown)");
    expect(found.some((p) => p.startsWith("DATABASE_URL must be postgres://") && p.includes("***"))).to.equal(true);
  });

  it("finance-mcp config prints the effective configuration without secrets", async () => {
    const run = await cli(["config"], {
      DATABASE_URL: "postgres://app:hunter2-secret@db.internal/finance",
      TOKEN_PEPPER: "pepper-pepper-pepper-pepper",
      PORT: "9090",
      METRICS: "on",
      REDIS_URL: "redis://:redis-secret-word@cache.internal:6379",
    });
    expect(run.code, run.stderr).to.equal(0);
    const printed = JSON.parse(run.stdout);
    expect(printed).to.include({
      port: 9090,
      databaseUrl: "postgres://app:***@db.internal/finance",
      tokenPepper: "(set)",
      metricsToken: "(not set)",
      redisUrl: "(set)",
      metrics: "on",
      writeTools: "enabled",
    });
    expect(run.stdout).not.to.include("hunter2-secret");
    expect(run.stdout).not.to.include("pepper-pepper");
    expect(run.stdout).not.to.include("redis-secret-word");
  });

  it("a bad variable stops the server before it listens, with the message on stderr", async () => {
    const run = await cli(["serve"], { PORT: "abc", WRITE_TOOLS: "maybe", DATABASE_URL: "sqlite::memory:" });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('PORT must be an integer from 0 to 65535, got "abc"');
    expect(run.stderr).to.include('WRITE_TOOLS must be one of enabled, disabled, got "maybe"');
  });
});
