/**
 * The scheduled sync: several processes over one database look for due connections at once; each due
 * connection is synced by exactly one of them (counted in the bridge's requests), and not again until
 * BANK_SYNC_INTERVAL has passed.
 */
import https from "node:https";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startSimplefinServer, unixOf, type SimplefinServer } from "../helpers/simplefin-server.js";
import { connectBank, linkAccounts } from "../../src/domain/banks/connect.js";
import { claimDue, dueConnections, runDueSyncs } from "../../src/banks/schedule.js";
import { randomIds } from "../../src/db/ids.js";

/** A new person whose bridge account "a" is connected and linked to a new wallet, as the account page does it. */
async function connectedPerson(server: TestServer, bridge: SimplefinServer) {
  const me = await server.createUser();
  const ctx = {
    db: server.db,
    config: server.config,
    caller: { userId: me.id, timezone: "UTC", defaultCurrency: "USD" },
    now: () => new Date(),
    ids: randomIds,
  };
  const c = await connectBank(ctx, { setupToken: bridge.setupToken() });
  const [linked] = await linkAccounts(ctx, { connectionId: c.connection_id, choices: { a: "new" } });
  return { me, c, linked: linked! };
}

describe(`scheduled bank sync (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let bridge: SimplefinServer;
  before(async () => {
    const today = new Date().toISOString().slice(0, 10);
    bridge = await startSimplefinServer([
      {
        id: "a",
        name: "Checking",
        currency: "USD",
        balance: "-5.00",
        "balance-date": unixOf(today, 0),
        transactions: [{ id: "x", posted: unixOf(today, 0) - 86_400, amount: "-5.00", description: "FEE" }],
      },
    ]);
    https.globalAgent.options.ca = bridge.cert;
    server = await startTestServer({ BANK_BRIDGE_ALLOW_PRIVATE: "true" });
  });
  after(async () => {
    delete https.globalAgent.options.ca;
    await server?.close();
    await bridge?.close();
  });

  it("syncs each due connection once, whichever of several processes claims it, then waits the interval", async () => {
    const { me, c } = await connectedPerson(server, bridge);
    const reads = () => bridge.requests.filter((r) => r.path.endsWith("/accounts")).length;
    const before = reads();
    const deps = { db: server.db, dispatch: server.services.dispatch, log: server.services.log, intervalSeconds: 6 * 3600 };
    // Three processes read the same due row before any claims it: exactly one claim wins.
    const seen = await Promise.all([0, 1, 2].map(() => dueConnections(server.db, new Date())));
    expect(seen.map((rows) => rows.map((r) => r.id))).to.deep.equal([[c.connection_id], [c.connection_id], [c.connection_id]]);
    const later = new Date(Date.now() + 6 * 3600_000).toISOString();
    const wins = await Promise.all(seen.map((rows) => claimDue(server.db, rows[0]!, later)));
    expect(wins.filter(Boolean)).to.have.length(1);
    // Put it back due, and let three schedulers run at once: one sync, one read at the bridge.
    await server
      .db("bank_connections")
      .where({ id: c.connection_id })
      .update({ next_sync_at: new Date(Date.now() - 1000).toISOString() });
    const runs = await Promise.all([runDueSyncs(deps), runDueSyncs(deps), runDueSyncs(deps)]);
    expect(runs.flat()).to.deep.equal([c.connection_id]);
    expect(reads() - before).to.equal(1);
    const listed = await server.call("list_bank_connections", {}, me.token);
    expect(listed.connections[0].last_status).to.equal("ok");
    expect(Date.parse(listed.connections[0].next_sync_at) - Date.now()).to.be.greaterThan(5 * 3600 * 1000);
    expect(await runDueSyncs(deps)).to.deep.equal([]);
    const wallet = (await server.call("list_wallets", {}, me.token)).wallets[0];
    expect(wallet.balance.value).to.equal("-5.00");
  });
});

describe(`deleting a linked wallet deletes the bank connection (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let bridge: SimplefinServer;
  before(async () => {
    bridge = await startSimplefinServer([
      { id: "a", name: "Savings", currency: "USD", balance: "0.00", "balance-date": unixOf("2026-11-01", 0), transactions: [] },
    ]);
    https.globalAgent.options.ca = bridge.cert;
    server = await startTestServer({ BANK_BRIDGE_ALLOW_PRIVATE: "true" });
  });
  after(async () => {
    delete https.globalAgent.options.ca;
    await server?.close();
    await bridge?.close();
  });

  it("the connection and its sealed credential go with the wallet", async () => {
    const { me, c, linked } = await connectedPerson(server, bridge);
    await server.call("delete_wallet", { wallet_id: linked.wallet_id, idempotency_key: randomUUID() }, me.token);
    expect(await server.db("bank_connections").where({ id: c.connection_id }).first()).to.equal(undefined);
    expect((await server.call("list_bank_connections", {}, me.token)).connections).to.deep.equal([]);
  });
});
