/**
 * The write pipeline without its two avoidable statements: the change event is built from what the
 * transaction wrote (no read of the audit row after commit), and a key is not looked up before the write
 * (the key's insert claims it; a key already stored rolls the call back and the stored key answers it).
 * What must not change: the event is exactly the audit row as read back, and a stored key is replayed or
 * refused whatever the handler makes of the retry.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { readAuditEntry, type AuditEntry } from "../../src/audit/log.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { countRows, key } from "./ledger-fixture.js";

/** The SQL the server's own knex runs while fn runs. */
async function statementsOf(db: Knex, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (q: { sql: string }) => seen.push(q.sql);
  db.on("query", listener);
  try {
    await fn();
  } finally {
    db.off("query", listener);
  }
  return seen;
}

describe(`write pipeline: statements and events (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let u: TestUser;
  let walletId: string;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
    u = await server.createUser();
    walletId = (
      await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", opening_balance: "50.00", idempotency_key: key() }, u.token)
    ).wallet.id;
  });
  after(async () => server?.close());

  it("publishes for every kind of write exactly the entry that reading its audit row back gives", async () => {
    const events: AuditEntry[] = [];
    const unsubscribe = server.services.bus.subscribe(u.id, (e) => events.push(e));
    try {
      const results: { audit_id: string }[] = [];
      const write = async (tool: string, params: Record<string, unknown>) => {
        const r = await server.call(tool, { ...params, idempotency_key: key() }, u.token);
        results.push(r);
        return r;
      };
      const other = (await write("create_wallet", { name: 'Sävings "2"', type: "savings", currency: "USD", notes: "line\nbreak" })).wallet;
      const t = await write("create_transaction", {
        wallet_id: walletId,
        to_wallet_id: other.id,
        direction: "transfer",
        amount: "2.50",
        tags: ["a", "b"],
        description: "ünï",
      });
      await write("update_transaction", { transaction_id: t.transaction.id, amount: "3.00" });
      await write("delete_transaction", { transaction_id: t.transaction.id });
      await write("update_wallet", { wallet_id: other.id, notes: null });
      await write("delete_wallet", { wallet_id: other.id });
      // On Postgres events arrive through LISTEN, after the call has answered (and the setup's may too).
      const ids = results.map((r) => r.audit_id);
      const mine = () => events.filter((e) => ids.includes(e.id));
      const deadline = Date.now() + 5000;
      while (mine().length < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(mine().map((e) => e.id)).to.deep.equal(ids);
      for (const e of mine()) expect(e, `audit ${e.id}`).to.deep.equal(await readAuditEntry(server.db, e.id));
      expect(mine().map((e) => e.action)).to.deep.equal(["create", "create", "update", "delete", "update", "delete"]);
    } finally {
      unsubscribe();
    }
  });

  it("commits a write without looking its key up first or reading its audit row back", async () => {
    const sql = await statementsOf(server.db, () =>
      server.call("create_transaction", { wallet_id: walletId, direction: "expense", amount: "1.00", idempotency_key: key() }, u.token),
    );
    expect(
      sql.some((s) => /insert into .?idempotency_keys/i.test(s)),
      sql.join("\n"),
    ).to.equal(true);
    expect(
      sql.filter((s) => /^select .* from .idempotency_keys/i.test(s)),
      sql.join("\n"),
    ).to.deep.equal([]);
    expect(
      sql.filter((s) => /^select .* from .audit_log/i.test(s)),
      sql.join("\n"),
    ).to.deep.equal([]);
  });

  it("keeps a write's bookkeeping (locks, row capture, audit, key, change event) to two statements on Postgres", async () => {
    const params = { wallet_id: walletId, direction: "expense", amount: "1.50", idempotency_key: key() };
    let answer: any;
    const sql = await statementsOf(server.db, async () => {
      answer = await server.call("create_transaction", params, u.token);
    });
    // The answer stored for a retry is, text for text, the answer given (its audit id joined in by SQL).
    const stored = await server.db("idempotency_keys").where({ user_id: u.id, key: params.idempotency_key }).first("response_json");
    expect(stored.response_json).to.equal(JSON.stringify(answer));
    expect(await server.call("create_transaction", params, u.token)).to.deep.equal({ ...answer, status: "replayed" });
    const bookkeeping = sql.filter((s) => /audit_(log|rows|capture)|idempotency_keys|pg_notify|advisory/i.test(s));
    // Postgres: one statement opens (the key's and the user's locks, the capture switch), one closes (audit
    // row, captured rows linked, key claimed, NOTIFY). SQLite has no round trips to save: five plain ones.
    expect(bookkeeping, sql.join("\n")).to.have.length(engine === "postgres" ? 2 : 5);
    expect(
      sql.filter((s) => /^(begin|commit)/i.test(s.trim())),
      sql.join("\n"),
    ).to.have.length(2);
  });

  it("create_transaction reads each wallet once, and still warns about an archived one", async () => {
    const walletReads = (sql: string[]) => sql.filter((s) => /^select .* from .wallets/i.test(s)).length;
    const archived = (await server.call("create_wallet", { name: "Old", type: "cash", currency: "USD", idempotency_key: key() }, u.token)).wallet;
    await server.call("update_wallet", { wallet_id: archived.id, archived: true, idempotency_key: key() }, u.token);
    let answer: any;
    let sql = await statementsOf(server.db, async () => {
      answer = await server.call("create_transaction", { wallet_id: archived.id, direction: "expense", amount: "1.25", idempotency_key: key() }, u.token);
    });
    expect(walletReads(sql), sql.join("\n")).to.equal(1);
    expect(answer.warnings.map((w: { code: string }) => w.code)).to.include("wallet_archived");
    expect(answer.transaction).to.include({ wallet_id: archived.id, currency: "USD" });
    sql = await statementsOf(server.db, () =>
      server.call(
        "create_transaction",
        { wallet_id: walletId, to_wallet_id: archived.id, direction: "transfer", amount: "1.00", idempotency_key: key() },
        u.token,
      ),
    );
    expect(walletReads(sql), sql.join("\n")).to.equal(2);
    const missing = await server.callError(
      "create_transaction",
      { wallet_id: "wal_doesnotexist000000000", direction: "expense", amount: "1.00", idempotency_key: key() },
      u.token,
    );
    expect(missing.data).to.include({ code: "not_found", field: "wallet_id" });
  });

  it("answers from a key stored by another process: the same call replayed, another refused, nothing written", async () => {
    const k = key();
    const params = { wallet_id: walletId, direction: "expense", amount: "4.00", idempotency_key: k };
    const first = await server.call("create_transaction", params, u.token);
    // Make the stored answer distinguishable from anything this call could compute.
    const stored = { ...first, transaction: { ...first.transaction, description: "stored elsewhere" }, audit_id: "987654321" };
    await server
      .db("idempotency_keys")
      .where({ user_id: u.id, key: k })
      .update({ response_json: JSON.stringify(stored) });
    const before = await countRows(server.db);
    const replay = await server.call("create_transaction", params, u.token);
    expect(replay).to.deep.equal({ ...stored, status: "replayed" });
    const refused = await server.callError("create_transaction", { ...params, amount: "5.00" }, u.token);
    expect(refused.data).to.include({ code: "idempotency_key_reused" });
    const otherTool = await server.callError("update_wallet", { wallet_id: walletId, notes: "x", idempotency_key: k }, u.token);
    expect(otherTool.data.code).to.equal("idempotency_key_reused");
    expect(await countRows(server.db)).to.deep.equal(before);
  });

  it("replays a retry whose handler would now fail (the delete already happened), and refuses it with other arguments", async () => {
    const t = await server.call("create_transaction", { wallet_id: walletId, direction: "expense", amount: "6.00", idempotency_key: key() }, u.token);
    const k = key();
    const deleted = await server.call("delete_transaction", { transaction_id: t.transaction.id, idempotency_key: k }, u.token);
    expect(deleted.status).to.equal("committed");
    const before = await countRows(server.db);
    expect(await server.call("delete_transaction", { transaction_id: t.transaction.id, idempotency_key: k }, u.token)).to.deep.equal({
      ...deleted,
      status: "replayed",
    });
    const refused = await server.callError(
      "delete_transaction",
      { transaction_id: "txn_" + randomUUID().replace(/-/g, "").slice(0, 20), idempotency_key: k },
      u.token,
    );
    expect(refused.data.code).to.equal("idempotency_key_reused");
    expect(await countRows(server.db)).to.deep.equal(before);
  });

  it("still reports a failing call with a new key as itself, and leaves the key free", async () => {
    const k = key();
    const err = await server.callError(
      "delete_transaction",
      { transaction_id: "txn_" + randomUUID().replace(/-/g, "").slice(0, 20), idempotency_key: k },
      u.token,
    );
    expect(err.data.code).to.equal("not_found");
    expect(await server.db("idempotency_keys").where({ user_id: u.id, key: k })).to.have.length(0);
  });
});
