/**
 * get_net_worth's series read in one statement (src/domain/networth/ledger.ts): every point of many series
 * shapes (weekly and monthly, days on either side of the 15th, month ends, a day before any wallet,
 * future-dated rows after to) against a hand computation straight from the rows.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

/** Per currency [assets, liabilities, net] in minor units, from the rows: wallets from their first day on. */
async function byHand(server: TestServer, userId: string, day: string): Promise<Record<string, [number, number, number]>> {
  const wallets = await server.db("wallets").where({ user_id: userId, archived: false });
  const txs = await server.db("transactions").where({ user_id: userId });
  const per: Record<string, [number, number, number]> = {};
  for (const w of wallets) {
    const own = txs.filter((t) => t.wallet_id === w.id);
    const firstTx = own.map((t) => String(t.date)).sort()[0];
    const created = String(w.created_at).slice(0, 10);
    const first = w.opening_date ?? (firstTx !== undefined && firstTx < created ? firstTx : created);
    if (first > day) continue;
    let balance = w.opening_date === null || w.opening_date <= day ? Number(w.opening_balance_minor) : 0;
    for (const t of own) if (String(t.date) <= day) balance += Number(t.amount_minor);
    const t = (per[w.currency] ??= [0, 0, 0]);
    if (w.type === "credit_card" || w.type === "loan") t[1] -= Math.abs(balance);
    else t[0] += balance;
    t[2] = t[0] + t[1];
  }
  return per;
}

describe(`get_net_worth series against the rows (${engine})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  let me: TestUser;
  const now = new Date("2026-11-25T12:00:00Z");
  const key = () => randomUUID();

  before(async () => {
    server = await startTestServer({}, { now: () => now });
    me = await server.createUser({ currency: "USD" });
    const wallet = async (params: Record<string, unknown>) => (await server.call("create_wallet", { ...params, idempotency_key: key() }, me.token)).wallet.id as string;
    // Checking has no opening date: it exists from its first transaction (2026-06-03), before its creation day.
    const checking = await wallet({ name: "Checking", type: "checking", currency: "USD", opening_balance: "100.00" });
    const card = await wallet({ name: "Card", type: "credit_card", currency: "USD", opening_balance: "50.00", opening_date: "2026-07-10" });
    const savings = await wallet({ name: "Sparen", type: "savings", currency: "EUR", opening_balance: "1000.00", opening_date: "2026-08-20" });
    const rows: Record<string, unknown>[] = [];
    let n = 0;
    // Every third day from June to the end of December (rows after today included), in turn in each wallet.
    for (let d = Date.UTC(2026, 5, 3); d <= Date.UTC(2026, 11, 31); d += 3 * 86_400_000) {
      const date = new Date(d).toISOString().slice(0, 10);
      const walletId = [checking, card, savings][n % 3]!;
      if ((walletId === card && date < "2026-07-10") || (walletId === savings && date < "2026-08-20")) {
        n++;
        continue;
      }
      const amount = ((n * 7919) % 20_000) + 1;
      const direction = n % 4 === 0 ? "income" : "expense";
      rows.push({
        id: `txn_series_${n}`,
        user_id: me.id,
        wallet_id: walletId,
        date,
        amount_minor: direction === "income" ? amount : -amount,
        currency: walletId === savings ? "EUR" : "USD",
        direction,
        payee: `Payee ${n % 5}`,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
      n++;
    }
    await server.db("transactions").insert(rows);
  });
  after(async () => server?.close());

  const series: { from?: string; to: string; step?: "week" | "month" }[] = [
    { from: "2026-06-01", to: "2026-11-25", step: "week" },
    { from: "2026-07-16", to: "2026-10-15", step: "week" },
    { from: "2026-08-31", to: "2026-12-31", step: "week" },
    { from: "2026-01-31", to: "2026-11-25", step: "month" },
    { from: "2026-06-15", to: "2026-12-16", step: "month" },
    { from: "2026-06-16", to: "2026-12-15", step: "month" },
    { to: "2026-06-02" },
    { to: "2026-06-03" },
    { to: "2026-07-31" },
    { to: "2026-09-15" },
    { to: "2026-09-16" },
    { to: "2026-12-31" },
  ];
  for (const params of series) {
    it(`matches the rows at every point of ${JSON.stringify(params)}`, async () => {
      const answer = await server.call("get_net_worth", params, me.token);
      expect(answer.points.length).to.be.greaterThan(0);
      for (const point of answer.points) {
        const got = Object.fromEntries(point.by_currency.map((c: any) => [c.currency, [c.assets.minor, c.liabilities.minor, c.net.minor]]));
        expect(got, point.date).to.deep.equal(await byHand(server, me.id, point.date));
      }
    });
  }

  it("leaves out every wallet on a day before all of them, and counts each from its first day", async () => {
    const answer = await server.call("get_net_worth", { from: "2026-06-02", to: "2026-08-20", step: "week" }, me.token);
    expect(answer.points[0]).to.deep.include({ date: "2026-06-02", by_currency: [] });
    const currencies = answer.points.map((p: any) => [p.date, p.by_currency.map((c: any) => c.currency)]);
    expect(currencies.at(-1)).to.deep.equal(["2026-08-20", ["EUR", "USD"]]);
    const between = currencies.filter(([d]: [string]) => d > "2026-06-02" && d < "2026-08-20");
    expect(between.length).to.be.greaterThan(5);
    for (const [d, c] of between) expect(c, d).to.deep.equal(["USD"]);
  });
});
