/**
 * docs/decisions.md, "Faults and hostile input": a wallet's running total could overflow int64 on SQLite (stored as a REAL,
 * corrupting every balance of the user) and failed with a retryable internal_error on Postgres. Now the
 * bounds of info.x-limits refuse the write first (invalid_params or conflict naming the field), and the
 * database refuses an overflowing total itself on both engines (SQLite guard triggers, Postgres BIGINT).
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { translateDriverError } from "../../src/db/errors.js";
import { AppError } from "../../src/errors.js";

const key = () => randomUUID();
const NEAR_LIMIT = 9_999_999_999_999_900n; // 99,999,999,999,999.00 USD: just below the 1e14 bound

describe(`faults: totals cannot overflow (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let u: TestUser;

  before(async () => {
    server = await startTestServer();
    u = await server.createUser();
  });
  after(async () => server?.close());

  const wallet = async (name: string) =>
    (await server.call("create_wallet", { name, type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id as string;
  /** A transaction whose amount is then set in SQL (the triggers keep the totals), past what a tool may send. */
  const seeded = async (walletId: string, date: string, minor: bigint) => {
    const t = (
      await server.call(
        "create_transaction",
        { wallet_id: walletId, direction: minor < 0n ? "expense" : "income", amount: "1.00", date, idempotency_key: key() },
        u.token,
      )
    ).transaction;
    await server.db("transactions").where({ id: t.id }).update({ amount_minor: minor.toString() });
    return t.id as string;
  };

  it("refuses the amount of the original report (10000000000000000.00) as invalid_params on amount, and the largest amount passes", async () => {
    const w = await wallet("Big");
    for (let i = 0; i < 3; i++) {
      const err = await server.callError(
        "create_transaction",
        { wallet_id: w, direction: "income", amount: "10000000000000000.00", idempotency_key: key() },
        u.token,
      );
      expect(err.data).to.include({ code: "invalid_params", field: "amount", retryable: false });
    }
    const ok = await server.call("create_transaction", { wallet_id: w, direction: "income", amount: "999999999999.99", idempotency_key: key() }, u.token);
    expect(ok.transaction.amount.value).to.equal("999999999999.99");
    const tooBig = await server.callError(
      "create_transaction",
      { wallet_id: w, direction: "income", amount: "1000000000000.00", idempotency_key: key() },
      u.token,
    );
    expect(tooBig.data).to.include({ code: "invalid_params", field: "amount" });
  });

  it("a write that would take a balance past the bound is a conflict on amount; nothing changes and every wallet still reads", async () => {
    const w = await wallet("Near the limit");
    await seeded(w, "2026-01-10", NEAR_LIMIT);
    const before = (await server.call("list_wallets", {}, u.token)).wallets.find((x: { id: string }) => x.id === w).balance.value;
    const err = await server.callError(
      "create_transaction",
      { wallet_id: w, direction: "income", amount: "1.00", date: "2026-02-01", idempotency_key: key() },
      u.token,
    );
    expect(err.data).to.include({ code: "conflict", field: "amount", retryable: false });
    expect(err.message).to.match(/balance/);
    const list = await server.call("list_wallets", {}, u.token);
    expect(list.wallets.find((x: { id: string }) => x.id === w).balance.value).to.equal(before);
    // The other direction still works, and so does a transfer out.
    await server.call("create_transaction", { wallet_id: w, direction: "expense", amount: "1.00", idempotency_key: key() }, u.token);
  });

  it("a monthly total past the bound is refused even when the balance is small", async () => {
    const w = await wallet("Offsetting months");
    await seeded(w, "2026-01-10", NEAR_LIMIT);
    await seeded(w, "2026-02-10", -NEAR_LIMIT);
    const err = await server.callError(
      "create_transaction",
      { wallet_id: w, direction: "income", amount: "100.00", date: "2026-01-20", idempotency_key: key() },
      u.token,
    );
    expect(err.data).to.include({ code: "conflict", field: "amount" });
    expect(err.message).to.match(/monthly total/);
    // Another month is fine: the balance is 0.00 and March's total small.
    await server.call("create_transaction", { wallet_id: w, direction: "income", amount: "100.00", date: "2026-03-01", idempotency_key: key() }, u.token);
  });

  it("deleting the income that offset a huge expense is refused when the balance would pass the bound", async () => {
    const w = await wallet("Offset");
    await seeded(w, "2026-01-10", -NEAR_LIMIT);
    const income = (
      await server.call("create_transaction", { wallet_id: w, direction: "income", amount: "500.00", date: "2026-02-10", idempotency_key: key() }, u.token)
    ).transaction.id;
    await server.call("create_transaction", { wallet_id: w, direction: "expense", amount: "400.00", date: "2026-03-10", idempotency_key: key() }, u.token);
    const err = await server.callError("delete_transaction", { transaction_id: income, idempotency_key: key() }, u.token);
    expect(err.data).to.include({ code: "conflict", field: "transaction_id" });
    const left = (await server.call("list_transactions", { wallet_id: w }, u.token)).transactions.map((t: { id: string }) => t.id);
    expect(left).to.include(income);
  });

  it("an opening balance that would take the balance past the bound is a conflict on opening_balance", async () => {
    const w = await wallet("Opening");
    await seeded(w, "2026-01-10", NEAR_LIMIT);
    const err = await server.callError("update_wallet", { wallet_id: w, opening_balance: "200.00", idempotency_key: key() }, u.token);
    expect(err.data).to.include({ code: "conflict", field: "opening_balance" });
  });

  it("the database itself refuses a total past int64 (SQLite: guard trigger instead of a REAL; Postgres: BIGINT overflow), and balances stay readable", async () => {
    const w = await wallet("Raw");
    const a = await seeded(w, "2026-05-01", 1n);
    const b = await seeded(w, "2026-05-02", 1n);
    await server.db("transactions").where({ id: a }).update({ amount_minor: "5000000000000000000" });
    let caught: unknown;
    try {
      await server.db("transactions").where({ id: b }).update({ amount_minor: "5000000000000000000" });
    } catch (err) {
      caught = err;
    }
    expect(caught, "the overflowing update must fail").to.be.instanceOf(Error);
    const translated = translateDriverError(caught);
    expect(translated).to.be.instanceOf(AppError);
    expect((translated as AppError).toData()).to.include({ code: "conflict", field: "amount" });
    const totals = await server.db("wallet_month_totals").where({ wallet_id: w });
    expect(totals.map((t: { total_minor: unknown }) => String(t.total_minor))).to.deep.equal(["5000000000000000001"]);
    if (engine === "sqlite") {
      const types = await server.db.raw("SELECT typeof(total_minor) AS t FROM wallet_month_totals");
      expect(new Set(types.map((r: { t: string }) => r.t))).to.deep.equal(new Set(["integer"]));
    }
    await server.db("transactions").where({ id: a }).update({ amount_minor: "1" });
    const list = await server.call("list_wallets", {}, u.token);
    expect(list.wallets.find((x: { id: string }) => x.id === w).balance.value).to.equal("0.02");
  });

  it("amount filters beyond the bound are invalid_params naming the filter", async () => {
    for (const [field, value] of [
      ["min_amount", "92233720368547758.08"],
      ["max_amount", "92233720368547758.08"],
      ["min_amount", "1000000000000"],
    ] as const) {
      const err = await server.callError("list_transactions", { [field]: value }, u.token);
      expect(err.data, `${field} ${value}`).to.include({ code: "invalid_params", field, retryable: false });
    }
    expect((await server.call("list_transactions", { max_amount: "999999999999.99" }, u.token)).transactions).to.be.an("array");
  });
});
