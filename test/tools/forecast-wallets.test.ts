/**
 * The forecast per wallet and a credit card settled (issue 49, item 2), by hand: wallet_ids narrows the
 * total, its low points, the next income, safe_to_spend and buffer to the wallets named; the low point is
 * given until the next income as well as over the horizon (for the total and each wallet); a card with a
 * reminder named after it, paid from the Girokonto, is paid off on the reminder's due day (what it owes
 * the day before moves from the Girokonto to the card), not counted as a further expense. Both engines.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const eur = (value: string) => ({ value, currency: "EUR", minor: Math.round(Number(value) * 100) });
const low = (date: string, value: string) => ({ date, balance: eur(value) });

describe(`get_cash_flow_forecast per wallet, with a card settled (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  let giro: string;
  let savings: string;
  let visa: string;
  let old: string;
  const key = () => randomUUID();
  const mine = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: key(), ...params }, me.token);
  const forecast = (params: Record<string, unknown> = {}) => server.call("get_cash_flow_forecast", { days: 30, ...params }, me.token);

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-11-25T12:00:00Z") });
    me = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const wallet = async (name: string, type: string, opening: string) =>
      (await mine("create_wallet", { name, type, currency: "EUR", opening_balance: opening, opening_date: "2026-07-31" })).wallet.id as string;
    giro = await wallet("Girokonto", "checking", "3000.00");
    savings = await wallet("Savings", "savings", "10000.00");
    visa = await wallet("Visa", "credit_card", "0.00");
    old = await wallet("Old account", "checking", "0.00");
    await mine("update_wallet", { wallet_id: old, archived: true });
    const tx = (walletId: string, date: string, amount: string, direction: string, payee: string) =>
      mine("create_transaction", { wallet_id: walletId, date, amount, direction, payee });
    for (const m of ["08", "09", "10"]) await tx(giro, `2026-${m}-28`, "2000.00", "income", "ACME GmbH");
    for (const m of ["08", "09", "10", "11"]) await tx(giro, `2026-${m}-01`, "1900.00", "expense", "Hausverwaltung");
    await tx(visa, "2026-11-20", "500.00", "expense", "Amazon");
    // The card's bill: a reminder named after it, paid from the Girokonto on the 3rd (a varying amount).
    await mine("create_bill_reminder", {
      name: "Visa",
      amount_min: "10.00",
      amount_max: "2000.00",
      currency: "EUR",
      wallet_id: giro,
      schedule: { frequency: "monthly", start_date: "2026-12-03", day_of_month: 3 },
    });
  });
  after(async () => server?.close());

  // By hand, today (11-25): Girokonto 3000 + 3 × 2000 − 4 × 1900 = 1400.00, Savings 10000.00, Visa −500.00:
  // 10900.00. Ahead: salary +2000 (11-28), rent −1900 (12-01), the Visa bill on 12-03: the 500.00 the card
  // owes at the end of 12-02 moves from the Girokonto to the card.

  it("settles the card on its due day from the paying wallet, the total unchanged by it", async () => {
    const all = await forecast();
    const wallet = (id: string) => all.wallets.find((w: any) => w.wallet_id === id);
    // The Girokonto: 1400 → 3400 (11-28) → 1500 (12-01) → 1000 (12-03); the card back to 0.00 on 12-03.
    expect(wallet(giro)).to.deep.include({ end_balance: eur("1000.00"), lowest: low("2026-12-03", "1000.00"), lowest_until_income: low("2026-11-25", "1400.00") });
    expect(wallet(visa)).to.deep.include({ balance: eur("-500.00"), end_balance: eur("0.00"), lowest_until_income: low("2026-11-25", "-500.00") });
    const daily = all.daily.wallets[all.wallets.findIndex((w: any) => w.wallet_id === visa)];
    expect([daily[7], daily[8]]).to.deep.equal(["-500.00", "0.00"]); // 12-02, 12-03
    // The reminder's 2000.00 is not an expense besides: the total only moves by salary and rent.
    expect(all).to.deep.include({ balance: eur("10900.00"), lowest: low("2026-11-25", "10900.00"), lowest_until_income: low("2026-11-25", "10900.00") });
    expect(all.daily.total[30]).to.equal("11000.00");
    expect(all.months.map((m: any) => [m.month, m.expense.value])).to.deep.equal([
      ["2026-11", "0.00"],
      ["2026-12", "1900.00"],
    ]);
  });

  it("narrows the total, the low points, the next income, safe_to_spend and buffer to the wallets named", async () => {
    const giroOnly = await forecast({ wallet_ids: [giro], buffer: "500.00" });
    expect(giroOnly.wallets.map((w: any) => w.wallet_id)).to.deep.equal([giro]);
    expect(giroOnly).to.deep.include({
      balance: eur("1400.00"),
      lowest: low("2026-12-03", "1000.00"),
      lowest_until_income: low("2026-11-25", "1400.00"),
      safe_to_spend: eur("900.00"),
      safe_until: "2026-11-27",
    });
    expect(giroOnly.next_income).to.deep.include({ date: "2026-11-28", wallet_id: giro });
    // What took it to its low point: the rent and the card's bill (the card is not among the wallets).
    expect(giroOnly.low_point_events.map((e: any) => [e.date, e.label, e.amount.value])).to.deep.equal([
      ["2026-12-01", "Hausverwaltung", "-1900.00"],
      ["2026-12-03", "Visa", "-500.00"],
    ]);
    expect(giroOnly.daily.total).to.have.length(31);
    expect(giroOnly.daily.total[30]).to.equal("1000.00");

    // All wallets pooled would have said far more (the savings count there).
    expect((await forecast({ buffer: "500.00" })).safe_to_spend).to.deep.equal(eur("10400.00"));
    // The savings alone: no income ever comes; safe until the horizon.
    const saved = await forecast({ wallet_ids: [savings] });
    expect(saved).to.deep.include({ next_income: null, safe_until: "2026-12-25", safe_to_spend: eur("10000.00") });
    // A what-if without a wallet counts against the wallets named: the trip takes the Girokonto to 700.00.
    const trip = await forecast({ wallet_ids: [giro], what_if: [{ date: "2026-12-10", amount: "300.00", direction: "expense", label: "Trip" }] });
    expect(trip.lowest).to.deep.equal(low("2026-12-10", "700.00"));
  });

  it("refuses a wallet the forecast does not count, and a what-if in a wallet not named, by field", async () => {
    const archived = await server.callError("get_cash_flow_forecast", { wallet_ids: [giro, old] }, me.token);
    expect(archived.data).to.include({ code: "invalid_params", field: "wallet_ids.1" });
    const unknown = await server.callError("get_cash_flow_forecast", { wallet_ids: ["wal_AAAAAAAAAAAAAAAAAAAAAA"] }, me.token);
    expect(unknown.data).to.include({ code: "not_found", field: "wallet_ids.0" });
    const elsewhere = await server.callError(
      "get_cash_flow_forecast",
      { wallet_ids: [giro], what_if: [{ date: "2026-12-10", amount: "1.00", direction: "expense", wallet_id: savings }] },
      me.token,
    );
    expect(elsewhere.data).to.include({ code: "invalid_params", field: "what_if.0.wallet_id" });
  });
});
