/**
 * The CLI: `finance-mcp user create` and `finance-mcp token create` (plus token list/revoke), run as a
 * child process (node bin/finance-mcp.js) against a fresh database of the current engine.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { isWellFormedToken } from "../../src/auth/token-format.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));
const PASSWORD = "a long enough password";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(stdin ?? "");
  });
}

describe(`CLI (${engine})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, LOG_LEVEL: "silent" };
  });
  after(async () => database.drop());

  it("user create: reads the password from FINANCE_MCP_PASSWORD, prints the user as JSON, stores a scrypt hash", async () => {
    const run = await cli(["user", "create", "--email", "Cli.User@Example.test", "--timezone", "Europe/Berlin", "--currency", "eur"], {
      ...env,
      FINANCE_MCP_PASSWORD: PASSWORD,
    });
    expect(run.stderr).to.equal("");
    expect(run.code).to.equal(0);
    const user = JSON.parse(run.stdout);
    expect(user).to.include({ email: "Cli.User@Example.test", timezone: "Europe/Berlin", default_currency: "EUR" });
    expect(user.id).to.match(/^usr_/);
    expect(user).not.to.have.property("password_hash");
    expect(run.stdout).not.to.include(PASSWORD);

    const db = createDb(database.url);
    try {
      const row = await db("users").where({ id: user.id }).first();
      expect(row.password_hash).to.match(/^scrypt\$131072\$8\$1\$/);
      expect(row.email_normalized).to.equal("cli.user@example.test");
    } finally {
      await db.destroy();
    }

    // The same email in another case is refused (exit 2, a message on stderr).
    const again = await cli(["user", "create", "--email", "cli.user@example.TEST"], { ...env, FINANCE_MCP_PASSWORD: PASSWORD });
    expect(again.code).to.equal(2);
    expect(again.stderr).to.include("already exists");
  });

  it("token create: password on standard input, prints the token once; list and revoke", async () => {
    const run = await cli(
      ["token", "create", "--email", "cli.user@example.test", "--scopes", "read:wallets,meta:whoami", "--name", "from the cli", "--expires-in-days", "30"],
      env,
      `${PASSWORD}\n`,
    );
    expect(run.stderr).to.equal("");
    expect(run.code).to.equal(0);
    const token = JSON.parse(run.stdout);
    expect(isWellFormedToken(token.token)).to.equal(true);
    expect(token).to.include({ name: "from the cli" });
    expect(token.scopes).to.deep.equal(["meta:whoami", "read:wallets"]);
    expect(Date.parse(token.expires_at) - Date.parse(token.created_at)).to.equal(30 * 86_400_000);

    const db = createDb(database.url);
    try {
      const row = await db("mcp_tokens").where({ id: token.token_id }).first();
      expect(row.token_hash).to.equal(createHash("sha256").update(token.token).digest("hex"));
    } finally {
      await db.destroy();
    }

    const wrong = await cli(["token", "create", "--email", "cli.user@example.test", "--scopes", "read:wallets", "--name", "x"], {
      ...env,
      FINANCE_MCP_PASSWORD: "not the password",
    });
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.include("wrong email or password");

    const list = await cli(["token", "list", "--email", "cli.user@example.test"], { ...env, FINANCE_MCP_PASSWORD: PASSWORD });
    expect(list.code).to.equal(0);
    expect(list.stdout).not.to.include(token.token);
    expect(JSON.parse(list.stdout.trim())).to.include({ token_id: token.token_id, status: "active" });

    const revoke = await cli(["token", "revoke", "--email", "cli.user@example.test", "--token-id", token.token_id], { ...env, FINANCE_MCP_PASSWORD: PASSWORD });
    expect(revoke.code).to.equal(0);
    expect(JSON.parse(revoke.stdout)).to.deep.equal({ token_id: token.token_id, revoked: true });
  });
});
