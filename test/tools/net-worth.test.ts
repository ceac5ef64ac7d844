import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** A hand computation straight from the rows: opening balances from their date, every transaction up to the day. */
async function byHand(server: TestServer, userId: string, day: string, skip: string[] = []) {
  const wallets = await server.db("wallets").where({ user_id: userId, archived: false });
  const txs = await server.db("transactions").where({ user_id: userId }).andWhere("date", "<=", day);
  const per = new Map<string, { assets: number; liabilities: number }>();
  for (const w of wallets) {
    if (skip.includes(w.id) || (w.opening_date !== null && w.opening_date > day)) continue;
    let balance = w.opening_date === null || w.opening_date <= day ? Number(w.opening_balance_minor) : 0;
    for (const t of txs) if (t.wallet_id === w.id) balance += Number(t.amount_minor);
    const t = per.get(w.currency) ?? { assets: 0, liabilities: 0 };
    if (w.type === "credit_card" || w.type === "loan") t.liabilities -= Math.abs(balance);
    else t.assets += balance;
    per.set(w.currency, t);
  }
  return per;
}

describe(`get_net_worth and set_exchange_rate (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  const now = new Date("2026-11-25T12:00:00Z");
  before(async () => (server = await startTestServer({}, { now: () => now })));
  after(async () => server?.close());
  const key = () => randomUUID();

  it("matches a hand computation on the demo ledger, per currency and then in EUR with the person's rates", async () => {
    const alex = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, now);

    // Before the wallets opened (2026-07-31): nothing, not 0.00 per wallet.
    const early = await server.call("get_net_worth", { to: "2026-07-15" }, alex.token);
    expect(early.points).to.deep.equal([{ date: "2026-07-15", by_currency: [], home_net: { value: "0.00", currency: "EUR", minor: 0 } }]);

    const series = await server.call("get_net_worth", { from: "2026-09-01", to: "2026-11-25", step: "month" }, alex.token);
    expect(series.points.map((p: any) => p.date)).to.deep.equal(["2026-09-01", "2026-10-01", "2026-11-01", "2026-11-25"]);
    for (const point of series.points) {
      const hand = await byHand(server, alex.id, point.date);
      expect(point.by_currency.map((c: any) => c.currency)).to.deep.equal(["EUR", "USD"]);
      for (const c of point.by_currency) {
        const h = hand.get(c.currency)!;
        expect([c.assets.minor, c.liabilities.minor, c.net.minor], `${point.date} ${c.currency}`).to.deep.equal([h.assets, h.liabilities, h.assets + h.liabilities]);
        if (c.currency === "EUR") expect(c.liabilities.minor).to.be.below(0); // the credit card is owed
      }
      expect(point.home_net).to.equal(null);
    }
    expect(series.missing_rates).to.deep.equal(["USD→EUR"]);
    const first = await byHand(server, alex.id, "2026-09-01");
    const last = await byHand(server, alex.id, "2026-11-25");
    const net = (m: Map<string, { assets: number; liabilities: number }>, c: string) => m.get(c)!.assets + m.get(c)!.liabilities;
    expect(series.change.by_currency.map((m: any) => m.minor)).to.deep.equal([net(last, "EUR") - net(first, "EUR"), net(last, "USD") - net(first, "USD")]);
    expect(series.change.home_net).to.equal(null);

    // Rates the person gives: one each way round; the newest on or before each day, else the earliest after.
    const set = await server.call("set_exchange_rate", { base: "USD", quote: "EUR", rate: "0.9200", date: "2026-10-15", idempotency_key: key() }, alex.token);
    expect(set).to.deep.include({ status: "committed", exchange_rate: { base: "USD", quote: "EUR", rate: "0.92", date: "2026-10-15" } });
    await server.call("set_exchange_rate", { base: "EUR", quote: "USD", rate: "1.25", date: "2026-11-20", idempotency_key: key() }, alex.token);
    const converted = await server.call("get_net_worth", { from: "2026-09-01", to: "2026-11-25", step: "month" }, alex.token);
    expect(converted.missing_rates).to.deep.equal([]);
    expect(converted.rates_used).to.deep.equal([
      { base: "USD", quote: "EUR", rate: "0.92", date: "2026-10-15" },
      { base: "EUR", quote: "USD", rate: "1.25", date: "2026-11-20" },
    ]);
    const expectHome = async (day: string, usdToEur: (minor: number) => number) => {
      const hand = await byHand(server, alex.id, day);
      return net(hand, "EUR") + usdToEur(net(hand, "USD"));
    };
    const at92 = (m: number) => Math.round(m * 0.92);
    const at125 = (m: number) => Math.round(m / 1.25);
    expect(converted.points.map((p: any) => p.home_net.minor)).to.deep.equal([
      await expectHome("2026-09-01", at92),
      await expectHome("2026-10-01", at92),
      await expectHome("2026-11-01", at92),
      await expectHome("2026-11-25", at125),
    ]);
    expect(converted.change.home_net.minor).to.equal(converted.points[3].home_net.minor - converted.points[0].home_net.minor);

    // A second rate for the same pair and day replaces the first (an update, with its change).
    const again = await server.call("set_exchange_rate", { base: "USD", quote: "EUR", rate: "0.93", date: "2026-10-15", idempotency_key: key() }, alex.token);
    expect(again.changes).to.deep.equal([{ field: "rate", before: "0.92", after: "0.93" }]);
    const replaced = await server.call("get_net_worth", { from: "2026-10-15", to: "2026-10-15" }, alex.token);
    expect(replaced.rates_used).to.deep.equal([{ base: "USD", quote: "EUR", rate: "0.93", date: "2026-10-15" }]);
    expect(replaced.points[0].home_net.minor).to.equal(await expectHome("2026-10-15", (m) => Math.round(m * 0.93)));
    expect(await server.db("exchange_rates").where({ user_id: alex.id, base: "USD", quote: "EUR", date: "2026-10-15" })).to.have.length(1);
    // Given the other way round for the same day, it replaces that day's rate too: one rate a day per pair.
    const inverse = await server.call("set_exchange_rate", { base: "EUR", quote: "USD", rate: "1.1", date: "2026-10-15", idempotency_key: key() }, alex.token);
    expect(inverse.changes).to.deep.equal([
      { field: "base", before: "USD", after: "EUR" },
      { field: "quote", before: "EUR", after: "USD" },
      { field: "rate", before: "0.93", after: "1.1" },
    ]);
    expect(await server.db("exchange_rates").where({ user_id: alex.id, date: "2026-10-15" })).to.have.length(1);
    const byInverse = await server.call("get_net_worth", { from: "2026-10-15", to: "2026-10-15" }, alex.token);
    expect(byInverse.rates_used).to.deep.equal([{ base: "EUR", quote: "USD", rate: "1.1", date: "2026-10-15" }]);
    expect(byInverse.points[0].home_net.minor).to.equal(await expectHome("2026-10-15", (m) => Math.round(m / 1.1)));

    // The wallet setting: savings left out.
    const wallets = await server.call("list_wallets", {}, alex.token);
    const savings = wallets.wallets.find((w: any) => w.name === "Savings");
    const updated = await server.call("update_wallet", { wallet_id: savings.id, in_net_worth: false, idempotency_key: key() }, alex.token);
    expect(updated.wallet.in_net_worth).to.equal(false);
    const without = await server.call("get_net_worth", {}, alex.token);
    const hand = await byHand(server, alex.id, "2026-11-25", [savings.id]);
    expect(without.points[0].by_currency[0].assets.minor).to.equal(hand.get("EUR")!.assets);
  });

  it("leaves a wallet out until its first transaction, refuses bad rates and long series, and shows nobody else's", async () => {
    const me = await server.createUser({ currency: "USD" });
    const other = await server.createUser({ currency: "USD" });
    const { wallet } = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "USD", idempotency_key: key() }, me.token);
    await server.call(
      "create_transaction",
      { wallet_id: wallet.id, date: "2026-11-10", amount: "20.00", direction: "income", payee: "Found", idempotency_key: key() },
      me.token,
    );
    const { wallet: loan } = await server.call("create_wallet", { name: "Car loan", type: "loan", currency: "USD", opening_balance: "5000.00", opening_date: "2026-11-01", idempotency_key: key() }, other.token);
    expect(loan.id).to.be.a("string");
    const answer = await server.call("get_net_worth", { from: "2026-11-03", to: "2026-11-17", step: "week" }, me.token);
    expect(answer.points.map((p: any) => [p.date, p.by_currency.map((c: any) => c.net.value)])).to.deep.equal([
      ["2026-11-03", []],
      ["2026-11-10", ["20.00"]],
      ["2026-11-17", ["20.00"]],
    ]);
    const theirs = await server.call("get_net_worth", {}, other.token);
    expect(theirs.points[0].by_currency).to.deep.equal([
      { currency: "USD", assets: { value: "0.00", currency: "USD", minor: 0 }, liabilities: { value: "-5000.00", currency: "USD", minor: -500000 }, net: { value: "-5000.00", currency: "USD", minor: -500000 } },
    ]);
    expect((await server.callError("set_exchange_rate", { base: "USD", quote: "EUR", rate: "0", idempotency_key: key() }, me.token)).data).to.include({ code: "invalid_params", field: "rate" });
    expect((await server.callError("set_exchange_rate", { base: "USD", quote: "USD", rate: "1", idempotency_key: key() }, me.token)).data).to.include({ code: "invalid_params", field: "quote" });
    expect((await server.callError("get_net_worth", { from: "2020-01-01", step: "week" }, me.token)).data).to.include({ code: "invalid_params", field: "step" });
  });
});
