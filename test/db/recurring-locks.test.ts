/**
 * The recurring-payee summary's triggers take a bounded number of locks whatever the number of payees
 * (migration 20261128130000, docs/decisions.md#recurring-payees-one-lock): one advisory lock per user on
 * Postgres, where one per payee filled the cluster's lock table on a 20,000-payee import ("out of shared
 * memory"). A statement inserting 5,000 rows of 5,000 distinct payees, then one renaming each of them,
 * hold one advisory lock in their transaction; the summary then holds each payee, on both engines.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PAYEES = 5000;

describe(`the recurring summary's locks are bounded (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  it(`inserts and renames ${PAYEES} distinct payees in one transaction holding one advisory lock`, async () => {
    const u = await server.createUser();
    const w = (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: randomUUID() }, u.token)).wallet.id;
    await server.call(
      "create_transaction",
      { wallet_id: w, date: "2026-03-01", amount: "1.00", direction: "expense", payee: "Model", idempotency_key: randomUUID() },
      u.token,
    );
    const model = await server.db("transactions").where({ user_id: u.id }).first();
    const rows = Array.from({ length: PAYEES }, (_, i) => ({
      ...model,
      id: `txn_recurringlocks${String(i).padStart(5, "0")}`,
      payee: `Payee ${i}`,
      external_id: null,
    }));
    const held = await server.db.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await trx("transactions").insert(rows.slice(i, i + 500));
      await trx("transactions")
        .where({ user_id: u.id })
        .whereLike("payee", "Payee %")
        .update({ payee: trx.raw("payee || ' renamed'") });
      if (engine !== "postgres") return undefined;
      const locks = await trx.raw("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()");
      return locks.rows[0].n as number;
    });
    if (engine === "postgres") expect(held, "advisory locks held by the transaction").to.equal(1);
    const kept = await server.db("recurring_payees").where({ user_id: u.id }).whereLike("payee_key", "payee % renamed").count({ n: "*" });
    expect(Number(kept[0]!.n)).to.equal(PAYEES);
    const old = await server
      .db("recurring_payees")
      .where({ user_id: u.id })
      .whereLike("payee_key", "payee %")
      .andWhereRaw("payee_key NOT LIKE ?", ["% renamed"]);
    expect(old).to.deep.equal([]);
  });
});
