/**
 * finance-mcp backup --to FILE: on SQLite, an online copy taken while a server process keeps writing is
 * one consistent committed state that opens and serves; on Postgres the command refuses and points to
 * pg_dump (docs/operations.md).
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import Database from "better-sqlite3";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { BackupError, backupSqlite } from "../../src/db/sqlite-backup.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess } from "../helpers/process.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe(`backup (${engine})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let dir: string;
  before(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), "fmcp-backup-"));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  if (engine === "postgres") {
    it("refuses on Postgres and names pg_dump", async () => {
      const run = await cli(["backup", "--to", join(dir, "copy.sqlite")], { DATABASE_URL: database.url });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.include("pg_dump").and.to.include("docs/operations.md");
      expect(existsSync(join(dir, "copy.sqlite"))).to.equal(false);
    });
    it("refuses on Postgres before touching a symlinked target", async () => {
      const aim = join(dir, "pg-through-link.sqlite");
      symlinkSync(aim, join(dir, "pg-link.sqlite"));
      const run = await cli(["backup", "--to", join(dir, "pg-link.sqlite")], { DATABASE_URL: database.url });
      expect(run.code).to.equal(2);
      expect(existsSync(aim)).to.equal(false);
    });
    return;
  }

  it("never writes through a symlink: a link to a file or a dangling link is refused and its aim is untouched", async () => {
    const db = createDb(database.url);
    await migrateLatest(db);
    await db.destroy();
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "keep me");
    symlinkSync(victim, join(dir, "to-file.sqlite"));
    const aim = join(dir, "created-through-link.sqlite");
    symlinkSync(aim, join(dir, "dangling.sqlite"));
    for (const link of ["to-file.sqlite", "dangling.sqlite"]) {
      let err: unknown;
      try {
        await backupSqlite(database.url, join(dir, link));
      } catch (e) {
        err = e;
      }
      expect(err, link).to.be.instanceOf(BackupError);
      expect((err as Error).message, link).to.include("is a symbolic link");
    }
    expect(readFileSync(victim, "utf8")).to.equal("keep me");
    expect(existsSync(aim)).to.equal(false);

    // A plain new file works; it is private to its owner and no scratch folder is left beside it.
    const fine = join(dir, "sub-copy.sqlite");
    expect((await backupSqlite(database.url, fine)).to).to.equal(fine);
    expect(statSync(fine).mode & 0o777).to.equal(0o600);
    expect(readdirSync(dir).filter((n) => n.startsWith("."))).to.deep.equal([]);
  });

  it("copies a live database while a server writes: the copy is whole, consistent and serves", async () => {
    const db = createDb(database.url);
    await migrateLatest(db);
    const user = await insertUserWithToken(db);
    await db.destroy();
    const server = await startServerProcess(database.url, { RATE_LIMIT_MCP_PER_MINUTE: "1000000" });
    const copy = join(dir, "copy.sqlite");
    try {
      const wallet = await callOver(server.mcpUrl, user.token, "create_wallet", { name: "Live", type: "cash", currency: "USD", idempotency_key: randomUUID() });
      const walletId = wallet.body.result.wallet.id;
      let stop = false;
      let written = 0;
      const writer = (async () => {
        for (let i = 0; i < 2000 && !stop; i++) {
          const r = await callOver(server.mcpUrl, user.token, "create_transaction", {
            wallet_id: walletId,
            amount: "2.50",
            direction: "expense",
            description: `w${i}`,
            idempotency_key: randomUUID(),
          });
          if (r.status === 200 && !r.body.error) written++;
        }
      })();
      while (written < 20) await new Promise((r) => setTimeout(r, 20));
      const run = await cli(["backup", "--to", copy], { DATABASE_URL: database.url });
      stop = true;
      await writer;
      expect(run.code, run.stderr).to.equal(0);
      const result = JSON.parse(run.stdout);
      expect(result.to).to.equal(copy);
      expect(result.bytes).to.be.greaterThan(0);

      // One committed state: every transaction in the copy has its audit row and its wallet's totals agree.
      const c = new Database(copy, { readonly: true });
      try {
        expect(c.pragma("integrity_check", { simple: true })).to.equal("ok");
        const n = (c.prepare("SELECT COUNT(*) AS n FROM transactions WHERE wallet_id = ?").get(walletId) as { n: number }).n;
        expect(n).to.be.at.least(20);
        expect(n).to.be.at.most(written);
        const audited = (c.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE tool = 'create_transaction'").get() as { n: number }).n;
        expect(audited).to.equal(n);
        const sum = (c.prepare("SELECT SUM(amount_minor) AS s FROM transactions WHERE wallet_id = ?").get(walletId) as { s: number }).s;
        const totals = (c.prepare("SELECT SUM(total_minor) AS s FROM wallet_month_totals WHERE wallet_id = ?").get(walletId) as { s: number }).s;
        expect(totals).to.equal(sum);
      } finally {
        c.close();
      }
    } finally {
      await server.stop();
    }

    // The copy is a database the server opens.
    // The copy holds the rate-limit counters too: the writer used more than the default 120 a minute.
    const restored = await startServerProcess(`sqlite:${copy}`, { RATE_LIMIT_MCP_PER_MINUTE: "1000000" });
    try {
      expect((await fetch(`${restored.url}/readyz`)).status).to.equal(200);
      const whoami = await callOver(restored.mcpUrl, user.token, "whoami", {});
      expect(whoami.body.result?.user_id, JSON.stringify(whoami.body)).to.equal(user.id);
    } finally {
      await restored.stop();
    }

    const again = await cli(["backup", "--to", copy], { DATABASE_URL: database.url });
    expect(again.code).to.equal(2);
    expect(again.stderr).to.include("exists already");
  });
});
