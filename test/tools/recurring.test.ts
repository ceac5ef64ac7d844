import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`list_recurring (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let now = new Date("2026-11-25T12:00:00Z");
  before(async () => (server = await startTestServer({}, { now: () => now })));
  after(async () => server?.close());
  const key = () => randomUUID();

  it("finds every recurring charge of the demo ledger and nothing else, with the covering reminders and totals", async () => {
    now = new Date("2026-11-25T12:00:00Z");
    const alex = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, now);
    const answer = await server.call("list_recurring", { include_ended: true }, alex.token);
    const seen = answer.recurring.map((r: any) => `${r.payee} ${r.direction} ${r.interval} ${r.status} ${r.occurrences}`).sort();
    // Every subscription and regular bill of src/demo/seed.ts (the freelance income every two months and
    // the random groceries, meals out and taxis are not recurring at these intervals).
    expect(seen).to.deep.equal(
      [
        "Deutsche Bahn expense monthly active 4",
        "FitX expense monthly active 4",
        "Hausverwaltung Krüger expense monthly active 4",
        "Netflix expense monthly active 4",
        "Nordlicht Software GmbH income monthly active 4",
        "Stadtwerke expense monthly active 4",
        "Telekom expense monthly active 4",
      ].sort(),
    );
    const netflix = answer.recurring.find((r: any) => r.payee === "Netflix");
    expect(netflix).to.deep.include({ last_date: "2026-11-15", next_date: "2026-12-15", bill_reminder_id: null });
    expect(netflix.typical_amount.value).to.equal("13.99");
    expect(netflix.yearly_cost.value).to.equal("167.88");
    const bills = await server.call("list_bill_reminders", { include_inactive: true }, alex.token);
    const billOf = (name: string) => bills.reminders.find((b: any) => b.name === name).id;
    const coveredBy = (payee: string) => answer.recurring.find((r: any) => r.payee === payee).bill_reminder_id;
    expect([coveredBy("Hausverwaltung Krüger"), coveredBy("Stadtwerke"), coveredBy("Telekom"), coveredBy("FitX")]).to.deep.equal([
      billOf("Rent"),
      billOf("Electricity"),
      billOf("Internet"),
      null,
    ]);
    // Stadtwerke's bill varies: its typical amount is the middle of its last three bills in the ledger.
    const stadtwerke = (await server.call("list_transactions", { query: "Stadtwerke", limit: 3 }, alex.token)).transactions;
    const middle = stadtwerke.map((t: any) => Math.abs(t.amount.minor)).sort((a: number, b: number) => a - b)[1];
    expect(answer.recurring.find((r: any) => r.payee === "Stadtwerke").typical_amount.minor).to.equal(middle).and.to.equal(6956);
    // By hand: rent 1150.00 + electricity 69.56 + train 49.00 + internet 39.99 + gym 29.90 + Netflix 13.99
    // a month, twelve times that a year.
    expect(answer.totals).to.deep.equal([
      { currency: "EUR", direction: "expense", monthly: { value: "1352.44", currency: "EUR", minor: 135244 }, yearly: { value: "16229.28", currency: "EUR", minor: 1622928 } },
      {
        currency: "EUR",
        direction: "income",
        monthly: { value: "3850.00", currency: "EUR", minor: 385000 },
        yearly: { value: "46200.00", currency: "EUR", minor: 4620000 },
      },
    ]);
    // The answer's next step, followed word for word for Netflix, makes the reminder that covers it.
    expect(answer.next_step).to.equal(
      "To be reminded of one without bill_reminder_id: create_bill_reminder with name and payee its payee, amount and currency its typical_amount's, its wallet_id, and schedule {frequency: its interval, start_date: its next_date}.",
    );
    const made = await server.call(
      "create_bill_reminder",
      {
        name: netflix.payee,
        payee: netflix.payee,
        amount: netflix.typical_amount.value,
        currency: netflix.typical_amount.currency,
        wallet_id: netflix.wallet_id,
        schedule: { frequency: netflix.interval, start_date: netflix.next_date },
        idempotency_key: key(),
      },
      alex.token,
    );
    const after = await server.call("list_recurring", {}, alex.token);
    expect(after.recurring.find((r: any) => r.payee === "Netflix").bill_reminder_id).to.equal(made.bill_reminder.id);
    const upcoming = await server.call("list_bill_reminders", { days_ahead: 40 }, alex.token);
    expect(upcoming.upcoming.filter((o: any) => o.bill_reminder_id === made.bill_reminder.id).map((o: any) => o.due_date)).to.deep.equal(["2026-12-15"]);
  });

  it("tells weekly from yearly, folds payee spellings, marks late and ended, follows writes, and shows nobody else's", async () => {
    now = new Date("2026-11-25T12:00:00Z");
    const me = await server.createUser();
    const other = await server.createUser();
    const wallet = async (token: string) =>
      (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: key() }, token)).wallet.id as string;
    const mine = await wallet(me.token);
    const theirs = await wallet(other.token);
    const pay = (token: string, walletId: string, date: string, amount: string, payee: string) =>
      server.call("create_transaction", { wallet_id: walletId, date, amount, direction: "expense", payee, idempotency_key: key() }, token);
    // Weekly cleaner, folded spellings of one streaming service, a yearly domain, a gym that stopped.
    for (const d of ["2026-10-23", "2026-10-30", "2026-11-06", "2026-11-13", "2026-11-20"]) await pay(me.token, mine, d, "90.00", "Maria");
    for (const [d, p] of [
      ["2026-08-03", "SPOTIFY"],
      ["2026-09-03", "Spotify #4411"],
      ["2026-10-03", "spotify"],
      ["2026-11-03", "Spotify"],
    ])
      await pay(me.token, mine, d!, "10.99", p!);
    for (const d of ["2024-12-01", "2025-12-01"]) await pay(me.token, mine, d, "14.98", "Namecheap");
    for (const d of ["2026-05-05", "2026-06-05", "2026-07-05", "2026-08-05"]) await pay(me.token, mine, d, "45.00", "City Gym");
    for (const d of ["2026-08-20", "2026-09-20", "2026-10-20"]) await pay(me.token, mine, d, "8.00", "Paper");
    for (const d of ["2026-08-01", "2026-09-01", "2026-10-01", "2026-11-01"]) await pay(other.token, theirs, d, "99.00", "Casino Club");

    let answer = await server.call("list_recurring", { include_ended: true }, me.token);
    const by = (payee: string) => answer.recurring.find((r: any) => r.payee === payee);
    expect(answer.recurring.map((r: any) => r.payee).sort()).to.deep.equal(["City Gym", "Maria", "Namecheap", "Paper", "Spotify"]);
    expect(by("Maria")).to.deep.include({ interval: "weekly", next_date: "2026-11-27", status: "active", occurrences: 5 });
    expect(by("Maria").monthly_cost.value).to.equal("390.00");
    expect(by("Spotify")).to.deep.include({ interval: "monthly", occurrences: 4, status: "active" });
    expect(by("Namecheap")).to.deep.include({ interval: "yearly", next_date: "2026-12-01", status: "active" });
    expect(by("Namecheap").monthly_cost.value).to.equal("1.25");
    expect(by("Paper")).to.deep.include({ next_date: "2026-11-20", status: "active" });
    expect(by("City Gym")).to.deep.include({ status: "ended", last_date: "2026-08-05" });
    // Without include_ended the gym goes; it never counts in the totals.
    const running = await server.call("list_recurring", {}, me.token);
    expect(running.recurring.map((r: any) => r.payee)).to.not.include("City Gym");
    expect(running.totals).to.have.length(1);
    // By hand: the cleaner 90.00 × 52 / 12 = 390.00, Spotify 10.99, the domain 14.98 / 12 = 1.25 (rounded),
    // paper 8.00; the ended gym not at all.
    expect(running.totals).to.deep.equal([
      { currency: "USD", direction: "expense", monthly: { value: "410.24", currency: "USD", minor: 41024 }, yearly: { value: "4922.86", currency: "USD", minor: 492286 } },
    ]);

    // Five days later, Paper's charge due on the 20th has not come: late.
    now = new Date("2026-11-26T12:00:00Z");
    answer = await server.call("list_recurring", {}, me.token);
    expect(by("Paper").status).to.equal("late");

    // The index is read at each call: a new charge moves the dates at once.
    await pay(me.token, mine, "2026-11-20", "8.00", "Paper");
    answer = await server.call("list_recurring", {}, me.token);
    expect(by("Paper")).to.deep.include({ status: "active", last_date: "2026-11-20", next_date: "2026-12-20", occurrences: 4 });
  });
});
