/**
 * The as-deployed journey of a bank connection, and the Access URL's secrecy: the CLI connects (a child
 * process trusting the test bridge through NODE_EXTRA_CA_CERTS), a server process syncs and lists over
 * MCP, the CLI syncs again; then the Access URL and each of its credentials are searched for in every log
 * line of both, every answer, the account's export, and every row of every table (what any backup holds,
 * the SQLite file's backup too). Only the sealed form may be stored.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { exportAccount } from "../../src/portability/export.js";
import { backupSqlite } from "../../src/db/sqlite-backup.js";
import { readSchemaTables } from "../../src/db/schema-tables.js";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { engine, migratedTestDatabase, type TestDatabase } from "../helpers/database.js";
import { callOver } from "../helpers/direct-user.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";
import { startSimplefinServer, unixOf, type SimplefinServer } from "../helpers/simplefin-server.js";
import { addDays } from "../../src/calendar/days.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));
const PASSWORD = "a long enough password";
const today = new Date().toISOString().slice(0, 10);

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 180_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end("");
  });
}

describe(`bank connection journey, and the Access URL in no log, answer, export or backup (${engine})`, function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let db: Knex;
  let bridge: SimplefinServer;
  let server: ServerProcess;
  let dir: string;
  let env: Record<string, string>;
  let userId: string;

  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    bridge = await startSimplefinServer([
      {
        id: "chk",
        name: "Everyday Checking",
        currency: "USD",
        balance: "2337.25",
        "balance-date": unixOf(today, 0) + 60,
        transactions: [
          { id: "t1", posted: unixOf(addDays(today, -20)), amount: "-42.75", description: "TRADER JOES" },
          { id: "t2", posted: unixOf(addDays(today, -10)), amount: "2500.00", description: "PAYROLL" },
          { id: "t3", posted: unixOf(addDays(today, -5)), amount: "-120.00", description: "RENT" },
          { id: "p1", posted: 0, amount: "-18.40", description: "CAFE", pending: true },
        ],
      },
    ]);
    dir = mkdtempSync(join(tmpdir(), "fmcp-bank-"));
    writeFileSync(join(dir, "bridge.pem"), bridge.cert);
    env = {
      DATABASE_URL: database.url,
      LOG_LEVEL: "info",
      NODE_EXTRA_CA_CERTS: join(dir, "bridge.pem"),
      BANK_BRIDGE_ALLOW_PRIVATE: "true",
      FINANCE_MCP_PASSWORD: PASSWORD,
    };
    server = await startServerProcess(database.url, { ...env, RATE_LIMIT_MCP_PER_MINUTE: "100000" }, { logs: true });
  });
  after(async () => {
    await server?.stop();
    await bridge?.close();
    await db?.destroy();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("connects by CLI, syncs (twin not duplicated, pending then posted, reconciled), and the Access URL is nowhere in clear", async () => {
    const texts: string[] = [];
    const made = await cli(["user", "create", "--email", "bank@example.test"], env);
    expect(made.code, made.stderr).to.equal(0);
    userId = JSON.parse(made.stdout).id as string;
    const { token } = await createToken(db, userId, { name: "test", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, "");
    const call = async (tool: string, params: Record<string, unknown>) => {
      const res = await callOver(server.mcpUrl, token, tool, params);
      texts.push(JSON.stringify(res.body));
      expect(res.body.error, JSON.stringify(res.body.error)).to.equal(undefined);
      return res.body.result;
    };
    // A wallet with the rent typed by hand, which the bank's row must match, not double.
    const { wallet } = await call("create_wallet", { name: "Checking", type: "checking", currency: "USD", idempotency_key: randomUUID() });
    await call("create_transaction", {
      wallet_id: wallet.id,
      amount: "120.00",
      direction: "expense",
      payee: "Landlord",
      date: addDays(today, -4),
      idempotency_key: randomUUID(),
    });

    const connect = await cli(["bank", "connect", "--email", "bank@example.test", "--setup-token", bridge.setupToken(), "--link", `chk=${wallet.id}`], env);
    texts.push(connect.stdout, connect.stderr);
    expect(connect.code, connect.stderr).to.equal(0);
    const connected = JSON.parse(connect.stdout);
    expect(connected.accounts).to.deep.equal([{ account_id: "chk", account: "Everyday Checking", currency: "USD", wallet_id: wallet.id, skipped: null }]);

    const synced = await call("sync_bank_connections", { idempotency_key: randomUUID() });
    expect(synced.connections[0].accounts[0]).to.deep.include({ created: 2, matched: 1, pending: 1 });
    expect(synced.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    texts.push(JSON.stringify(await call("list_bank_connections", {})));
    texts.push(JSON.stringify(await call("list_changes", {})));

    // The coffee posts (another id, with a tip); the CLI's sync books it once.
    bridge.accounts[0]!.transactions = bridge.accounts[0]!.transactions.filter((t) => !t.pending);
    bridge.accounts[0]!.transactions.push({ id: "t4", posted: unixOf(addDays(today, -1)), amount: "-21.00", description: "CAFE" });
    bridge.accounts[0]!.balance = "2316.25";
    const again = await cli(["bank", "sync", "--email", "bank@example.test"], env);
    texts.push(again.stdout, again.stderr);
    expect(again.code, again.stderr).to.equal(0);
    const second = JSON.parse(again.stdout);
    expect(second.connections[0].accounts[0]).to.deep.include({ created: 1, pending: 0 });
    expect(second.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    const listed = await call("list_transactions", { wallet_id: wallet.id, limit: 50 });
    expect(listed.transactions).to.have.length(4);

    const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? String(x) : x));
    texts.push(json(await exportAccount(db, userId)));
    for (const t of await readSchemaTables(db)) texts.push(json(await db(t.name).select("*")));
    if (engine === "sqlite") {
      await backupSqlite(database.url, join(dir, "backup.sqlite"));
      texts.push(readFileSync(join(dir, "backup.sqlite")).toString("latin1"));
    }
    texts.push(...server.logs);

    expect(bridge.accessUrls).to.have.length(1);
    const access = new URL(bridge.accessUrls[0]!);
    const secrets = [bridge.accessUrls[0]!, access.username, access.password, Buffer.from(`${access.username}:${access.password}`).toString("base64")];
    const all = texts.join("\n");
    for (const secret of secrets) expect(all.includes(secret), `a credential of the Access URL was found in clear`).to.equal(false);
    // The check can fail: the sealed row is there, and a clear one would be found.
    expect(all).to.match(/v1\.[0-9a-f]{12}\./);
    expect(`${all}\n${bridge.accessUrls[0]}`.includes(access.password)).to.equal(true);
  });

  it("`bank disconnect` by the CLI deletes the connection and its sealed Access URL; the wallet and its transactions stay", async () => {
    const rows = async (table: string) => Number((await db(table).where({ user_id: userId }).count({ n: "*" }))[0]!.n);
    expect(await rows("bank_connections")).to.equal(1);
    expect(await rows("bank_accounts")).to.equal(1);
    const transactions = await rows("transactions");
    const off = await cli(["bank", "disconnect", "--email", "bank@example.test"], env);
    expect(off.code, off.stderr).to.equal(0);
    expect(JSON.parse(off.stdout).disconnected).to.have.length(1);
    expect(await rows("bank_connections")).to.equal(0);
    expect(await rows("bank_accounts")).to.equal(0);
    expect(await rows("transactions")).to.equal(transactions);
    const again = await cli(["bank", "disconnect", "--email", "bank@example.test"], env);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout).disconnected).to.deep.equal([]);
  });
});
