/**
 * Bank connections against a SimpleFIN server on loopback (test/helpers/simplefin-server.ts), on both
 * engines: connect (claim once; a second claim is refused as possibly compromised), link, sync through the
 * write pipeline (the bank's posted rows exactly, a hand-typed twin matched, pending not booked until
 * posted, the balance reconciled to 0.00), idempotency and undo, and each fault of the issue.
 */
import https from "node:https";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { startSimplefinServer, unixOf, type SimplefinServer, type SfinAccount } from "../helpers/simplefin-server.js";
import { connectBank, linkAccounts, type BankContext } from "../../src/domain/banks/connect.js";
import { randomIds } from "../../src/db/ids.js";
import { addDays } from "../../src/calendar/days.js";
import { limits } from "../../generated/limits.js";

const today = new Date().toISOString().slice(0, 10);
const ago = (n: number) => addDays(today, -n);

describe(`bank connections over SimpleFIN (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let bridge: SimplefinServer;
  before(async () => {
    bridge = await startSimplefinServer();
    https.globalAgent.options.ca = bridge.cert;
    server = await startTestServer({ BANK_BRIDGE_ALLOW_PRIVATE: "true" });
  });
  after(async () => {
    delete https.globalAgent.options.ca;
    await server?.close();
    await bridge?.close();
  });

  const ctxOf = (user: TestUser): BankContext => ({
    db: server.db,
    config: server.config,
    caller: { userId: user.id, timezone: "UTC", defaultCurrency: "USD" },
    now: () => new Date(),
    ids: randomIds,
  });

  /** A fresh bank with one checking account, a person connected to it and the account linked to a new wallet. */
  async function connected(account: SfinAccount, link: string | "new" = "new", user?: TestUser) {
    bridge.accounts.splice(0, bridge.accounts.length, account);
    bridge.faults = {};
    const me = user ?? (await server.createUser());
    const c = await connectBank(ctxOf(me), { setupToken: bridge.setupToken() });
    const [linked] = await linkAccounts(ctxOf(me), { connectionId: c.connection_id, choices: { [account.id]: link } });
    return { me, connectionId: c.connection_id, walletId: linked!.wallet_id! };
  }
  const sync = (token: string, extra: Record<string, unknown> = {}) => server.call("sync_bank_connections", { idempotency_key: randomUUID(), ...extra }, token);
  const txns = async (token: string, walletId: string) =>
    (await server.call("list_transactions", { wallet_id: walletId, limit: 100 }, token)).transactions as {
      id: string;
      amount: { value: string };
      date: string;
      payee: string | null;
    }[];

  function checking(): SfinAccount {
    return {
      id: "acc-1",
      name: "Everyday Checking",
      currency: "USD",
      balance: "1000.00",
      "balance-date": unixOf(today, 0) + 60,
      transactions: [
        { id: "t1", posted: unixOf(ago(20)), amount: "-42.75", description: "TRADER JOES #552" },
        { id: "t2", posted: unixOf(ago(10)), amount: "2500.00", description: "ACME PAYROLL", payee: "Acme Corp" },
        { id: "t3", posted: unixOf(ago(5)), amount: "-120.00", description: "HAUSVERWALTUNG MIETE" },
        { id: "p1", posted: 0, amount: "-18.40", description: "CAFE (pending)", pending: true },
      ],
    };
  }

  it("claims a setup token once: a second claim is refused as possibly compromised", async () => {
    const me = await server.createUser();
    bridge.accounts.splice(0, bridge.accounts.length, checking());
    const token = bridge.setupToken();
    await connectBank(ctxOf(me), { setupToken: token });
    const err = await connectBank(ctxOf(me), { setupToken: token }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/already claimed.*compromised/s);
  });

  it("books exactly the bank's posted transactions into a new wallet, reconciled to 0.00, and lists the connection", async () => {
    const { me, walletId } = await connected(checking());
    const preview = await sync(me.token, { dry_run: true });
    expect(preview.status).to.equal("dry_run");
    expect(preview.created).to.equal(3);
    expect(await txns(me.token, walletId)).to.have.length(0);
    const done = await sync(me.token);
    expect(done.created).to.equal(3);
    const account = done.connections[0].accounts[0];
    expect(account).to.deep.include({ wallet_id: walletId, created: 3, matched: 0, pending: 1 });
    expect(account.reconciliation.difference).to.equal("0.00");
    expect(done.warnings.map((w: { code: string }) => w.code)).to.deep.equal(["pending_not_booked"]);
    const booked = await txns(me.token, walletId);
    expect(booked.map((t) => t.amount.value).sort()).to.deep.equal(["-120.00", "-42.75", "2500.00"]);
    // Again: nothing new, still reconciled.
    const again = await sync(me.token);
    expect(again.created).to.equal(0);
    expect(again.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    const listed = await server.call("list_bank_connections", {}, me.token);
    expect(listed.connections[0]).to.deep.include({ bridge: new URL(bridge.origin).host, last_status: "ok" });
    expect(listed.connections[0].accounts[0]).to.deep.equal({ account: "Everyday Checking", currency: "USD", wallet_id: walletId, skipped: null });
  });

  it("matches a hand-typed twin by amount and date (payee only ranks), and books the posted row of a pending one", async () => {
    const me = await server.createUser();
    const { wallet } = await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", idempotency_key: randomUUID() }, me.token);
    await server.call(
      "create_transaction",
      { wallet_id: wallet.id, amount: "120.00", direction: "expense", payee: "Landlord", date: ago(4), idempotency_key: randomUUID() },
      me.token,
    );
    const acc = checking();
    acc.balance = "2337.25";
    await connected(acc, wallet.id, me);
    const first = await sync(me.token);
    expect(first.connections[0].accounts[0]).to.deep.include({ created: 2, matched: 1, pending: 1 });
    expect(first.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    expect(await txns(me.token, wallet.id)).to.have.length(3);
    // The pending coffee posts under another id with a tip: booked once, at the posted amount.
    acc.transactions = acc.transactions.filter((t) => !t.pending).concat({ id: "t4", posted: unixOf(ago(1)), amount: "-21.00", description: "CAFE" });
    acc.balance = "2316.25";
    const second = await sync(me.token);
    expect(second.connections[0].accounts[0]).to.deep.include({ created: 1, matched: 0, pending: 0 });
    expect(second.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    const all = await txns(me.token, wallet.id);
    expect(all).to.have.length(4);
    expect(all.filter((t) => t.amount.value === "-21.00")).to.have.length(1);
    expect(all.filter((t) => t.amount.value === "-18.40")).to.have.length(0);
  });

  it("replays a sync by its idempotency key and undoes it as one change", async () => {
    const { me, walletId } = await connected(checking());
    const key = randomUUID();
    const first = await sync(me.token, { idempotency_key: key });
    const replay = await sync(me.token, { idempotency_key: key });
    expect(replay.status).to.equal("replayed");
    expect(replay.audit_id).to.equal(first.audit_id);
    expect(await txns(me.token, walletId)).to.have.length(3);
    await server.call("undo_change", { audit_id: first.audit_id, idempotency_key: randomUUID() }, me.token);
    expect(await txns(me.token, walletId)).to.have.length(0);
  });

  it("names a reconciliation difference with the likely transaction", async () => {
    const acc = checking();
    const { me } = await connected(acc);
    acc.balance = "1042.75"; // the bank says the grocery never happened
    const done = await sync(me.token);
    const warning = done.warnings.find((w: { code: string }) => w.code === "balance_differs");
    expect(warning?.message).to.match(/difference 42\.75.*likely: txn_\w+ \(\d{4}-\d{2}-\d{2}, -42\.75\)/);
  });

  it("books at most the bulk row cap per account per sync, says so, and the next sync books the rest", async () => {
    const cap = limits.bulkWriteRows;
    const n = cap + 3;
    const acc = checking();
    // n rows over 80 days, each amount distinct (no two are twins), the last three the newest.
    acc.transactions = Array.from({ length: n }, (_, i) => ({
      id: `bulk-${i}`,
      posted: unixOf(ago(80 - Math.floor((i * 80) / n))) + (i % 3600),
      amount: `-${((i + 1) / 100).toFixed(2)}`,
      description: `ROW ${i}`,
    }));
    const totalMinor = (n * (n + 1)) / 2;
    acc.balance = `-${Math.floor(totalMinor / 100)}.${String(totalMinor % 100).padStart(2, "0")}`;
    const { me, walletId } = await connected(acc);
    const count = async () => Number((await server.db("transactions").where({ wallet_id: walletId }).count({ n: "*" }))[0]!.n);

    const first = await sync(me.token);
    expect(first.created).to.equal(cap);
    expect(await count()).to.equal(cap);
    const capped = first.warnings.find((w: { code: string }) => w.code === "row_cap");
    expect(capped?.message).to.include(`(${cap}); the oldest were booked, the next sync books the rest`);

    const second = await sync(me.token);
    expect(second.created).to.equal(3);
    expect(await count()).to.equal(n);
    expect(second.warnings.map((w: { code: string }) => w.code)).to.not.include("row_cap");
    expect(second.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    const newest = (await txns(me.token, walletId)).map((t) => t.amount.value);
    for (const i of [n - 3, n - 2, n - 1]) expect(newest).to.include(`-${((i + 1) / 100).toFixed(2)}`);
  });

  describe("faults: none loses, duplicates or half-writes a row", () => {
    it("a bridge that repeats and reorders transactions books each once", async () => {
      const { me, walletId } = await connected(checking());
      bridge.faults = { repeat: true, reorder: true };
      const done = await sync(me.token);
      expect(done.created).to.equal(3);
      expect(await txns(me.token, walletId)).to.have.length(3);
      expect(done.connections[0].accounts[0].reconciliation.difference).to.equal("0.00");
    });

    for (const [name, faults, code] of [
      ["5xx", { status: 503 }, /HTTP 503/],
      ["403 (revoked)", { revoked: true }, /refused access \(HTTP 403\).*revoked/],
      ["malformed JSON", { malformed: true }, /not JSON; nothing was read/],
      ["slow (beyond the timeout)", { slowMs: 1500 }, /did not answer within/],
    ] as const) {
      it(`a bridge answering ${name} writes nothing and records the failure`, async () => {
        const { me, walletId, connectionId } = await connected(checking());
        bridge.faults = { ...faults };
        if (name.startsWith("slow")) {
          // A bounded read: the client's own timeout, made short for the test (the default is 30 s).
          const { readAccounts } = await import("../../src/banks/simplefin.js");
          const err = await readAccounts(bridge.accessUrls.at(-1)!, { start: 0, end: 2e9, pending: false }, { allowPrivate: true, timeoutMs: 300 }).then(
            () => null,
            (e: Error) => e,
          );
          expect(err?.message).to.match(code);
          return;
        }
        const done = await sync(me.token);
        expect(done.created).to.equal(0);
        expect(done.connections[0]).to.deep.include({ connection_id: connectionId, synced: false });
        expect(done.connections[0].error).to.match(code);
        expect(await txns(me.token, walletId)).to.have.length(0);
        const listed = await server.call("list_bank_connections", {}, me.token);
        expect(listed.connections[0].last_status).to.equal("failed");
        expect(listed.connections[0].errors[0]).to.match(code);
        // The bridge recovers: the next sync books everything once.
        bridge.faults = {};
        expect((await sync(me.token)).created).to.equal(3);
      });
    }

    it("a bridge that changes an amount it already sent changes nothing and says so", async () => {
      const acc = checking();
      const { me, walletId } = await connected(acc);
      await sync(me.token);
      // Within the overlap every sync reads again (the last 10 days).
      acc.transactions[2]!.amount = "-125.00";
      const done = await sync(me.token);
      expect(done.created).to.equal(0);
      const changed = done.warnings.find((w: { code: string }) => w.code === "amount_changed");
      expect(changed?.message).to.match(/now states -125\.00 for transaction txn_\w+ .*holds -120\.00/);
      expect((await txns(me.token, walletId)).map((t) => t.amount.value).sort()).to.deep.equal(["-120.00", "-42.75", "2500.00"]);
    });

    it("the bridge's own errors are shown sanitised, without links or markup", async () => {
      const { me } = await connected(checking());
      bridge.faults = { errors: ["<b>Login to Example Bank</b> required: visit https://evil.example/x?u=a:b@c \u0007now"] };
      const done = await sync(me.token);
      expect(done.connections[0].bridge_errors).to.deep.equal(["Login to Example Bank required: visit [link removed] now"]);
    });
  });

  it("skips an account in a custom currency, with the reason", async () => {
    const me = await server.createUser();
    const miles: SfinAccount = {
      id: "miles",
      name: "Air Miles",
      currency: "https://bank.example/miles",
      balance: "1200",
      "balance-date": unixOf(today, 0),
      transactions: [],
    };
    bridge.accounts.splice(0, bridge.accounts.length, checking(), miles);
    const c = await connectBank(ctxOf(me), { setupToken: bridge.setupToken() });
    const skipped = c.accounts.find((a) => a.account_id === "miles");
    expect(skipped?.skip_reason).to.match(/custom one \(https:\/\/bank\.example\/miles\).*not synced/);
  });

  it("refuses a bridge on a loopback address unless BANK_BRIDGE_ALLOW_PRIVATE=true", async () => {
    const me = await server.createUser();
    const strict: BankContext = { ...ctxOf(me), config: { ...server.config, banks: { ...server.config.banks, allowPrivate: false } } };
    const err = await connectBank(strict, { setupToken: bridge.setupToken() }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/private or loopback address/);
  });
});
