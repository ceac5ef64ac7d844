import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** Days from `from` to `to`, both inclusive, by hand (UTC midnights). */
function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** A running balance at the end of each day from a start and dated changes, in cents, as "12.34". */
function byHand(start: number, from: string, to: string, changes: Record<string, number>): string[] {
  let cents = start;
  return days(from, to).map((d, i) => {
    if (i > 0) cents += changes[d] ?? 0;
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
  });
}

describe(`get_cash_flow_forecast (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let now = new Date("2026-11-25T12:00:00Z");
  before(async () => (server = await startTestServer({}, { now: () => now })));
  after(async () => server?.close());
  const key = () => randomUUID();

  it("matches a hand computation day by day: salary, rent, a subscription, a planned yearly bill, a future row, another currency, a what-if", async () => {
    now = new Date("2026-11-25T12:00:00Z");
    const me = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const other = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const wallet = async (token: string, name: string, currency: string, opening: string) =>
      (
        await server.call(
          "create_wallet",
          { name, type: "checking", currency, opening_balance: opening, opening_date: "2026-07-31", idempotency_key: key() },
          token,
        )
      ).wallet.id as string;
    const giro = await wallet(me.token, "Girokonto", "EUR", "2500.00");
    await wallet(me.token, "US account", "USD", "100.00");
    const theirs = await wallet(other.token, "Theirs", "EUR", "99999.00");
    await server.call("set_exchange_rate", { base: "USD", quote: "EUR", rate: "0.9", date: "2026-11-01", idempotency_key: key() }, me.token);
    const tx = (token: string, walletId: string, date: string, amount: string, direction: string, payee: string) =>
      server.call("create_transaction", { wallet_id: walletId, date, amount, direction, payee, idempotency_key: key() }, token);
    for (const m of ["08", "09", "10"]) await tx(me.token, giro, `2026-${m}-28`, "2000.00", "income", "ACME GmbH");
    for (const m of ["08", "09", "10", "11"]) {
      await tx(me.token, giro, `2026-${m}-01`, "1900.00", "expense", "Hausverwaltung");
      await tx(me.token, giro, `2026-${m}-15`, "13.99", "expense", "Netflix");
    }
    // Regular spending: left out unless asked for.
    for (const [d, a] of [
      ["2026-08-04", "46.75"],
      ["2026-09-02", "55.10"],
      ["2026-10-06", "52.30"],
    ])
      await tx(me.token, giro, d!, a!, "expense", "Lidl");
    // A future-dated row, and a yearly bill with a reminder and no charge yet.
    await tx(me.token, giro, "2026-12-01", "50.00", "expense", "Dentist");
    await server.call(
      "create_bill_reminder",
      { name: "Car insurance", payee: "HUK", amount: "612.00", wallet_id: giro, schedule: { frequency: "yearly", start_date: "2026-12-10" }, idempotency_key: key() },
      me.token,
    );
    // The insurance typed in ahead as a future-dated row a day after its due date: it counts once, on the row's day.
    await tx(me.token, giro, "2026-12-11", "612.00", "expense", "HUK");
    // Someone else's money and bills never show.
    await tx(other.token, theirs, "2026-11-30", "5000.00", "expense", "Casino");

    const answer = await server.call(
      "get_cash_flow_forecast",
      { days: 90, buffer: "100.00", what_if: [{ date: "2027-02-10", amount: "1200.00", direction: "expense", label: "Trip" }] },
      me.token,
    );
    // By hand. Today: 2500.00 + 3 × 2000.00 − 4 × 1900.00 − 4 × 13.99 − (46.75 + 55.10 + 52.30) = 689.89 on
    // the Girokonto; 100.00 USD at 0.9 is 90.00 EUR.
    const giroChanges: Record<string, number> = {
      "2026-11-28": 200000,
      "2026-12-01": -190000 - 5000,
      "2026-12-11": -61200,
      "2026-12-15": -1399,
      "2026-12-28": 200000,
      "2027-01-01": -190000,
      "2027-01-15": -1399,
      "2027-01-28": 200000,
      "2027-02-01": -190000,
      "2027-02-15": -1399,
    };
    const giroDaily = byHand(68989, "2026-11-25", "2027-02-23", giroChanges);
    const totalDaily = byHand(68989 + 9000, "2026-11-25", "2027-02-23", { ...giroChanges, "2027-02-10": -120000 });
    expect(answer.daily.wallets).to.deep.equal([giroDaily, byHand(10000, "2026-11-25", "2027-02-23", {})]);
    expect(answer.daily.total).to.deep.equal(totalDaily);
    expect(answer).to.deep.include({ as_of: "2026-11-25", until: "2027-02-23", currency: "EUR", safe_until: "2026-11-27", missing_rates: [] });
    expect(answer.balance.value).to.equal("779.89");
    // The low point: after the trip and February's Netflix, −914.08 + 90.00.
    expect(answer.lowest).to.deep.equal({ date: "2027-02-15", balance: { value: "-824.08", currency: "EUR", minor: -82408 } });
    expect(answer.next_income).to.deep.equal({
      date: "2026-11-28",
      label: "ACME GmbH",
      amount: { value: "2000.00", currency: "EUR", minor: 200000 },
      wallet_id: giro,
      source: "regular_payment",
    });
    // The trip has no wallet: it moves the total, not the Girokonto, whose low is after the insurance.
    // Until the salary: the lowest total before it (today's 779.89) minus the 100.00 buffer.
    expect(answer.safe_to_spend.value).to.equal("679.89");
    expect(answer.wallets.map((w: any) => [w.name, w.balance.value, w.lowest.date, w.lowest.balance.value, w.end_balance.value])).to.deep.equal([
      ["Girokonto", "689.89", "2026-12-15", "113.90", "285.92"],
      ["US account", "100.00", "2026-11-25", "100.00", "100.00"],
    ]);
    expect(answer.months.map((m: any) => [m.month, m.income.value, m.expense.value, m.end_balance.value])).to.deep.equal([
      ["2026-11", "2000.00", "0.00", "2779.89"],
      ["2026-12", "2000.00", "2575.99", "2203.90"],
      ["2027-01", "2000.00", "1913.99", "2289.91"],
      ["2027-02", "0.00", "3113.99", "-824.08"],
    ]);
    // Behind the low point: the outflows since the last income before it (2027-01-28).
    expect(answer.low_point_events.map((e: any) => [e.date, e.label, e.amount.value, e.source])).to.deep.equal([
      ["2027-02-01", "Hausverwaltung", "-1900.00", "regular_payment"],
      ["2027-02-10", "Trip", "-1200.00", "what_if"],
      ["2027-02-15", "Netflix", "-13.99", "regular_payment"],
    ]);

    // Regular spending comes in when asked for, at its typical amount on its expected dates (Lidl's
    // next after 2026-10-06 is 2026-11-06, past its grace: missed, so the next is 2026-12-06).
    const withShop = await server.call("get_cash_flow_forecast", { days: 90, include_regular_spending: true }, me.token);
    const shop = byHand(0, "2026-11-25", "2027-02-23", { "2026-12-06": -5230, "2027-01-06": -5230, "2027-02-06": -5230 });
    const without = await server.call("get_cash_flow_forecast", { days: 90 }, me.token);
    const diff = withShop.daily.total.map((v: string, i: number) => Math.round((Number(v) - Number(without.daily.total[i])) * 100));
    expect(diff).to.deep.equal(shop.map((v) => Math.round(Number(v) * 100)));

    // in_days: the same event as days after today (2026-11-25 + 77 = 2027-02-10), the same answer.
    const relative = await server.call(
      "get_cash_flow_forecast",
      { days: 90, buffer: "100.00", what_if: [{ in_days: 77, amount: "1200.00", direction: "expense", label: "Trip" }] },
      me.token,
    );
    expect(relative).to.deep.equal(answer);

    // A what-if writes nothing.
    const changes = await server.call("list_changes", { limit: 5 }, me.token);
    expect(changes.changes.map((c: any) => c.tool)).to.not.include("get_cash_flow_forecast");
  });

  it("over 365 days counts each regular payment exactly as list_recurring's 12-month cost, on the demo ledger", async () => {
    now = new Date("2026-11-25T12:00:00Z");
    const alex = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, now);
    const recurring = await server.call("list_recurring", {}, alex.token);
    const full = await server.call("get_cash_flow_forecast", { days: 365 }, alex.token);
    const end = (f: any) => BigInt(Math.round(Number(f.daily.total[f.daily.total.length - 1]) * 100));
    for (const payee of ["Netflix", "Hausverwaltung Krüger", "Stadtwerke", "HUK-Coburg", "Nordlicht Software GmbH"]) {
      const series = recurring.recurring.find((r: any) => r.payee === payee);
      const without = await server.call("get_cash_flow_forecast", { days: 365, cancel: [payee] }, alex.token);
      const sign = series.direction === "income" ? 1n : -1n;
      expect(end(full) - end(without), payee).to.equal(sign * BigInt(series.yearly_cost.minor));
    }
    // Each demo month by hand: salary 3850.00 in; rent 1150.00, train 49.00, gym 29.90, electricity (its
    // latest, 64.86), internet 39.99, Netflix 13.99 out; the car insurance 412.80 on 2026-12-01; the
    // transfers between the person's own wallets move nothing in total.
    const december = full.months.find((m: any) => m.month === "2026-12");
    expect(december.income.value).to.equal("3850.00");
    expect(december.expense.value).to.equal((1150 + 49 + 29.9 + 64.86 + 39.99 + 13.99 + 412.8).toFixed(2));
  });

  it("refuses a what-if in the past and another person's wallet, naming the field", async () => {
    now = new Date("2026-11-25T12:00:00Z");
    const me = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const other = await server.createUser();
    const theirs = (await server.call("create_wallet", { name: "Theirs", type: "cash", currency: "EUR", idempotency_key: key() }, other.token)).wallet.id;
    let err = await server.callError("get_cash_flow_forecast", { what_if: [{ date: "2026-11-25", amount: "5.00", direction: "expense" }] }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "what_if.0.date" });
    err = await server.callError("get_cash_flow_forecast", { what_if: [{ date: "2026-12-25", amount: "5.00", direction: "expense", wallet_id: theirs }] }, me.token);
    expect(err.data).to.include({ code: "not_found", field: "what_if.0.wallet_id" });
    err = await server.callError("get_cash_flow_forecast", { what_if: [{ date: "2027-02-30", amount: "5.00", direction: "expense" }] }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "what_if.0.date" });
    // in_days instead of date (an example that holds on any day): exactly one of the two.
    err = await server.callError("get_cash_flow_forecast", { what_if: [{ amount: "5.00", direction: "expense" }] }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "what_if.0.date" });
    err = await server.callError("get_cash_flow_forecast", { what_if: [{ date: "2026-12-25", in_days: 3, amount: "5.00", direction: "expense" }] }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "what_if.0.in_days" });
    err = await server.callError("get_cash_flow_forecast", { what_if: [{ in_days: 0, amount: "5.00", direction: "expense" }] }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "what_if.0.in_days" });
    err = await server.callError("get_cash_flow_forecast", { buffer: "1.234" }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "buffer" });
    err = await server.callError("get_cash_flow_forecast", { days: 366 }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "days" });
  });
});
