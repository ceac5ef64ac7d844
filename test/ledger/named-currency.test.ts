/**
 * Currency on every write that takes an amount (issue 39, item 1): create_transaction, update_transaction
 * and add_goal_funds take an optional `currency`; one other than the money's own is refused with
 * invalid_params naming the field and the person's wallets in that currency (never another user's),
 * with nothing written; the same currency, or none, writes as before. A statement import in another
 * currency names them the same way. Runs on SQLite and Postgres (FINANCE_TEST_ENGINE).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();

describe(`a named currency on writes (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let me: TestUser;
  let stranger: TestUser;
  let giro: string;
  let visaUsd: string;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-20T12:00:00Z") });
    me = await server.createUser({ timezone: "UTC" });
    stranger = await server.createUser({ timezone: "UTC" });
    const wallet = async (user: TestUser, name: string, currency: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: key() }, user.token)).wallet.id as string;
    giro = await wallet(me, "Girokonto", "EUR");
    visaUsd = await wallet(me, "Visa USD", "USD");
    await wallet(stranger, "Stranger Dollars", "USD");
  });
  after(async () => server?.close());

  const count = async () => Number(((await server.db("transactions").where({ user_id: me.id }).count({ n: "*" }).first()) as { n: unknown }).n);

  it("create_transaction refuses USD into a euro wallet, naming the person's USD wallets, and writes nothing", async () => {
    const before = await count();
    const err = await server.callError(
      "create_transaction",
      { wallet_id: giro, amount: "9.99", currency: "USD", direction: "expense", payee: "Apple.com", idempotency_key: key() },
      me.token,
    );
    expect(err.data.code).to.equal("invalid_params");
    expect(err.data.field).to.equal("currency");
    expect(err.message).to.contain('"Girokonto" holds EUR, not USD');
    expect(err.message).to.contain(`"Visa USD" (${visaUsd})`);
    expect(err.message).not.to.contain("Stranger");
    expect(await count()).to.equal(before);
  });

  it("create_transaction with the wallet's own currency, or none, records the amount", async () => {
    const same = await server.call(
      "create_transaction",
      { wallet_id: visaUsd, amount: "9.99", currency: "USD", direction: "expense", payee: "Apple.com", idempotency_key: key() },
      me.token,
    );
    expect(same.transaction.amount).to.deep.equal({ value: "-9.99", currency: "USD", minor: -999 });
    const none = await server.call("create_transaction", { wallet_id: giro, amount: "3.50", direction: "expense", idempotency_key: key() }, me.token);
    expect(none.transaction.amount.currency).to.equal("EUR");
  });

  it("a currency with no wallet of the person's says so; an unknown code is refused as such", async () => {
    const err = await server.callError(
      "create_transaction",
      { wallet_id: giro, amount: "5", currency: "JPY", direction: "expense", idempotency_key: key() },
      me.token,
    );
    expect(err.data.field).to.equal("currency");
    expect(err.message).to.contain("no open wallet in JPY");
    const unknown = await server.callError(
      "create_transaction",
      { wallet_id: giro, amount: "5", currency: "XYZ", direction: "expense", idempotency_key: key() },
      me.token,
    );
    expect(unknown.data.field).to.equal("currency");
    expect(unknown.message).to.contain("unknown currency");
  });

  it("a dry run is refused the same way", async () => {
    const err = await server.callError(
      "create_transaction",
      { wallet_id: giro, amount: "9.99", currency: "USD", direction: "expense", dry_run: true, idempotency_key: key() },
      me.token,
    );
    expect(err.data.field).to.equal("currency");
  });

  it("update_transaction refuses a new amount in another currency and leaves the row as it was", async () => {
    const created = await server.call("create_transaction", { wallet_id: giro, amount: "12.00", direction: "expense", idempotency_key: key() }, me.token);
    const err = await server.callError(
      "update_transaction",
      { transaction_id: created.transaction.id, amount: "15.00", currency: "USD", idempotency_key: key() },
      me.token,
    );
    expect(err.data.field).to.equal("currency");
    expect(err.message).to.contain(`"Visa USD" (${visaUsd})`);
    const row = await server.db("transactions").where({ id: created.transaction.id }).first();
    expect(String(row.amount_minor)).to.equal("-1200");
    const ok = await server.call(
      "update_transaction",
      { transaction_id: created.transaction.id, amount: "15.00", currency: "EUR", idempotency_key: key() },
      me.token,
    );
    expect(ok.transaction.amount.value).to.equal("-15.00");
  });

  it("add_goal_funds refuses a contribution in another currency than the goal's", async () => {
    const goal = await server.call("create_goal", { name: "Trip", target_amount: "500.00", currency: "EUR", idempotency_key: key() }, me.token);
    const err = await server.callError("add_goal_funds", { goal_id: goal.goal.id, amount: "50.00", currency: "USD", idempotency_key: key() }, me.token);
    expect(err.data.field).to.equal("currency");
    expect(err.message).to.contain('goal "Trip" holds EUR, not USD');
    const ok = await server.call("add_goal_funds", { goal_id: goal.goal.id, amount: "50.00", currency: "EUR", idempotency_key: key() }, me.token);
    expect(ok.goal.saved.value).to.equal("50.00");
  });

  it("a statement in another currency is refused naming the person's wallets in it", async () => {
    const statement = readFileSync(new URL("../fixtures/statements/bank-1x.ofx", import.meta.url), "utf8");
    const err = await server.callError("import_transactions", { wallet_id: giro, statement, dry_run: true, idempotency_key: key() }, me.token);
    expect(err.data.field).to.equal("wallet_id");
    expect(err.message).to.contain(`"Visa USD" (${visaUsd})`);
  });
});
