/**
 * Currency on every write that takes an amount (issue 39, item 1): create_transaction, update_transaction,
 * add_goal_funds and the updates of budgets, goals, bill reminders and wallets take an optional `currency`; one other than the money's own is refused with
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

  it("the updates of a budget, a goal, a bill reminder and a wallet refuse an amount in another currency, writing nothing", async () => {
    const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: key(), ...params }, me.token);
    const refused = (tool: string, params: Record<string, unknown>) => server.callError(tool, { idempotency_key: key(), ...params }, me.token);
    const budget = (await call("create_budget", { name: "Food", amount: "300.00", currency: "EUR", period: "month" })).budget;
    const goal = (await call("create_goal", { name: "Bike", target_amount: "800.00", currency: "EUR" })).goal;
    const bill = (
      await call("create_bill_reminder", {
        name: "Rent",
        amount: "900.00",
        currency: "EUR",
        schedule: { frequency: "monthly", start_date: "2026-04-01", day_of_month: 1 },
      })
    ).bill_reminder;
    const cases: [string, Record<string, unknown>, string, string][] = [
      ["update_budget", { budget_id: budget.id, amount: "350.00" }, 'budget "Food" holds EUR, not USD', "budgets"],
      ["update_goal", { goal_id: goal.id, target_amount: "900.00" }, 'goal "Bike" holds EUR, not USD', "goals"],
      ["update_bill_reminder", { bill_reminder_id: bill.id, amount: "950.00" }, 'bill reminder "Rent" holds EUR, not USD', "bill_reminders"],
      ["update_wallet", { wallet_id: giro, opening_balance: "100.00" }, 'the wallet "Girokonto" holds EUR, not USD', "wallets"],
    ];
    for (const [tool, params, says, table] of cases) {
      const before = await server.db(table).where({ user_id: me.id }).orderBy("id");
      for (const dry_run of [true, false]) {
        const err = await refused(tool, { ...params, currency: "USD", dry_run });
        expect(err.data, tool).to.deep.include({ code: "invalid_params", field: "currency" });
        expect(err.message, tool).to.contain(says);
        // The person's wallets in USD, never another person's.
        expect(err.message, tool).to.contain(`"Visa USD" (${visaUsd})`);
        expect(err.message, tool).to.not.contain("Stranger");
      }
      expect(await server.db(table).where({ user_id: me.id }).orderBy("id"), tool).to.deep.equal(before);
      // The money's own currency writes as before.
      expect((await call(tool, { ...params, currency: "EUR" })).status, tool).to.equal("committed");
    }
  });
});
