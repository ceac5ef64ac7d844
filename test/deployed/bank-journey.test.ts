/**
 * The as-deployed journey of a bank connection (issue 50), on both engines: the compiled server started
 * by `npm start` as its own process, the test SimpleFIN bridge on loopback (https with a throwaway
 * certificate the server and the CLI trust through NODE_EXTRA_CA_CERTS; BANK_BRIDGE_ALLOW_PRIVATE=true
 * lets them reach loopback), and as separate processes and clients: `bank connect` by the CLI, then
 * `sync_bank_connections` over MCP with the SDK client (a hand-typed twin matched, not duplicated; a
 * pending transaction counted, not booked, then booked once when posted; the wallet's balance reconciled
 * to the bridge's at 0.00), `bank disconnect` by the CLI, and list_bank_connections empty afterwards.
 * Nothing here imports the server's code: the bridge is the tests' own server, built from the protocol.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { startSimplefinServer, unixOf, type SimplefinServer } from "../helpers/simplefin-server.js";
import { baseEnv, cli, npmStart, type ServerProcess } from "./processes.js";
import { connect, daysAgo, type Call } from "./journey.js";

const SCOPES = ["read:transactions", "write:transactions", "read:wallets", "write:wallets"].join(",");
const EMAIL = "bank@example.com";
type Listed = { id: string; date: string; amount: { value: string } };

describe(`as deployed: a bank connection by the CLI, synced over MCP, disconnected by the CLI (${engine})`, function () {
  this.timeout(600_000);
  let dir: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  let bridge: SimplefinServer;
  let server: ServerProcess | undefined;
  let session: { call: Call; close: () => Promise<void> } | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-deployed-bank-"));
    if (engine === "postgres") database = await createTestDatabase();
    bridge = await startSimplefinServer([
      {
        id: "chk",
        name: "Everyday Checking",
        currency: "USD",
        balance: "2337.25",
        "balance-date": unixOf(daysAgo(0), 0) + 60,
        transactions: [
          { id: "t1", posted: unixOf(daysAgo(20)), amount: "-42.75", description: "TRADER JOES" },
          { id: "t2", posted: unixOf(daysAgo(10)), amount: "2500.00", description: "PAYROLL" },
          { id: "t3", posted: unixOf(daysAgo(5)), amount: "-120.00", description: "RENT" },
          { id: "p1", posted: 0, amount: "-18.40", description: "CAFE", pending: true },
        ],
      },
    ]);
    writeFileSync(join(dir, "bridge.pem"), bridge.cert);
    env = {
      ...baseEnv(engine === "postgres" ? database!.url : `sqlite:${join(dir, "data", "finance.sqlite")}`),
      NODE_EXTRA_CA_CERTS: join(dir, "bridge.pem"),
      BANK_BRIDGE_ALLOW_PRIVATE: "true",
    };
  });
  after(async () => {
    await session?.close().catch(() => undefined);
    await server?.stop();
    await bridge?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `finance-mcp …` beside the live server; exit code 0 and its standard output as JSON. */
  async function run(...args: string[]): Promise<any> {
    const r = await cli(args, env);
    expect(r.code, `finance-mcp ${args.join(" ")}\n${r.stderr}`).to.equal(0);
    return JSON.parse(r.stdout);
  }

  it("connect by CLI, sync over MCP (twin matched, pending then posted, balance reconciled to 0.00), disconnect by CLI", async () => {
    server = await npmStart(env);
    await run("user", "create", "--email", EMAIL, "--timezone", "UTC", "--currency", "USD");
    const { token } = await run("token", "create", "--email", EMAIL, "--scopes", SCOPES, "--name", "bank journey");
    session = await connect(server.mcpUrl, token);
    const call = session.call;

    // The rent, typed by hand a day after the bank booked it: the bank's row must match it, not double it.
    const { wallet } = await call("create_wallet", { name: "Checking", type: "checking", currency: "USD" });
    const typed = await call("create_transaction", { wallet_id: wallet.id, amount: "120.00", direction: "expense", payee: "Landlord", date: daysAgo(4) });

    const connected = await run("bank", "connect", "--email", EMAIL, "--setup-token", bridge.setupToken(), "--link", `chk=${wallet.id}`);
    expect(connected.accounts).to.deep.equal([{ account_id: "chk", account: "Everyday Checking", currency: "USD", wallet_id: wallet.id, skipped: null }]);

    const first = await call("sync_bank_connections", { idempotency_key: randomUUID() });
    expect(first.created).to.equal(2);
    expect(first.connections[0].accounts[0]).to.deep.include({ created: 2, matched: 1, pending: 1 });
    expect(first.connections[0].accounts[0].reconciliation).to.deep.include({ bank_balance: "2337.25", wallet_balance: "2337.25", difference: "0.00" });
    const booked = async () =>
      ((await call("list_transactions", { wallet_id: wallet.id, limit: 50 })).transactions as Listed[]).map((t) => [t.date, t.amount.value]).sort();
    expect(await booked()).to.deep.equal(
      [
        [daysAgo(20), "-42.75"],
        [daysAgo(10), "2500.00"],
        [daysAgo(4), "-120.00"],
      ].sort(),
    );
    const rent = ((await call("list_transactions", { wallet_id: wallet.id, limit: 50 })).transactions as Listed[]).filter((t) => t.amount.value === "-120.00");
    expect(rent.map((t) => t.id)).to.deep.equal([typed.transaction.id]);

    // The same sync again changes nothing: the bridge's ids are import keys.
    const repeat = await call("sync_bank_connections", { idempotency_key: randomUUID() });
    expect(repeat.connections[0].accounts[0]).to.deep.include({ created: 0, pending: 1 });

    // The coffee posts under another id, with a tip: booked once, the pending one never.
    bridge.accounts[0]!.transactions = bridge.accounts[0]!.transactions.filter((t) => !t.pending);
    bridge.accounts[0]!.transactions.push({ id: "t4", posted: unixOf(daysAgo(1)), amount: "-21.00", description: "CAFE" });
    bridge.accounts[0]!.balance = "2316.25";
    const posted = await call("sync_bank_connections", { idempotency_key: randomUUID() });
    expect(posted.connections[0].accounts[0]).to.deep.include({ created: 1, matched: 0, pending: 0 });
    expect(posted.connections[0].accounts[0].reconciliation).to.deep.include({ bank_balance: "2316.25", wallet_balance: "2316.25", difference: "0.00" });
    expect(await booked()).to.deep.equal(
      [
        [daysAgo(20), "-42.75"],
        [daysAgo(10), "2500.00"],
        [daysAgo(4), "-120.00"],
        [daysAgo(1), "-21.00"],
      ].sort(),
    );
    expect((await call("list_bank_connections", {})).connections).to.have.length(1);

    const off = await run("bank", "disconnect", "--email", EMAIL);
    expect(off.disconnected.map((c: { connection_id: string }) => c.connection_id)).to.deep.equal([connected.connection_id]);
    expect((await call("list_bank_connections", {})).connections).to.deep.equal([]);
    expect(await booked()).to.have.length(4); // the wallet and its transactions stay
  });
});
