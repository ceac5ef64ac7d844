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
        "HUK-Coburg expense yearly planned 0",
        "Hausverwaltung Krüger expense monthly active 4",
        "Namecheap expense yearly planned 0",
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
    const billOfPayee = (payee: string) => bills.reminders.find((b: any) => b.payee === payee).id;
    const coveredBy = (payee: string) => answer.recurring.find((r: any) => r.payee === payee).bill_reminder_id;
    expect([coveredBy("Hausverwaltung Krüger"), coveredBy("Stadtwerke"), coveredBy("Telekom"), coveredBy("FitX")]).to.deep.equal([
      billOf("Rent"),
      billOf("Electricity"),
      billOf("Internet"),
      null,
    ]);
    // Stadtwerke's bill varies: its typical amount is the middle of its last three bills in the ledger, its
    // price the latest bill.
    const stadtwerke = (await server.call("list_transactions", { query: "Stadtwerke", limit: 3 }, alex.token)).transactions;
    const middle = stadtwerke.map((t: any) => Math.abs(t.amount.minor)).sort((a: number, b: number) => a - b)[1];
    const electricity = answer.recurring.find((r: any) => r.payee === "Stadtwerke");
    expect(electricity.typical_amount.minor).to.equal(middle).and.to.equal(6956);
    expect(electricity).to.deep.include({ kind: "bill", confidence: "high", price_changes: [], missed: [] });
    expect(electricity.price.minor).to.equal(-stadtwerke[0].amount.minor).and.to.equal(6486);
    expect(netflix).to.deep.include({ kind: "subscription", confidence: "high", price_changes: [], missed: [] });
    expect(answer.recurring.find((r: any) => r.payee === "Nordlicht Software GmbH").kind).to.equal("income");
    // The yearly car insurance has a reminder and no charge yet: planned, due on the 1st of next month.
    // Rent, utilities and insurance are bills whatever their amount: by payee, or the reminder's name or category.
    expect(answer.recurring.find((r: any) => r.payee === "Hausverwaltung Krüger").kind).to.equal("bill");
    expect(answer.recurring.find((r: any) => r.payee === "Telekom").kind).to.equal("bill");
    expect(answer.recurring.find((r: any) => r.payee === "FitX").kind).to.equal("subscription");
    expect(answer.recurring.find((r: any) => r.payee === "HUK-Coburg")).to.deep.include({
      kind: "bill",
      status: "planned",
      occurrences: 0,
      last_date: null,
      next_date: "2026-12-01",
      bill_reminder_id: billOfPayee("HUK-Coburg"),
    });
    // By hand, twelve charges of each monthly one in the 365 days after today: rent 1150.00 + electricity
    // 64.86 (its latest) + train 49.00 + internet 39.99 + gym 29.90 + Netflix 13.99 = 1347.74 a month,
    // 16172.88 a year, and the car insurance once, 412.80: 16585.68 (1382.14 a month: 34.40 for the
    // insurance). In USD the domain once, 14.98 (1.25 a month).
    expect(answer.totals).to.deep.equal([
      { currency: "EUR", direction: "expense", counts: "subscription and bill rows not ended", monthly: { value: "1382.14", currency: "EUR", minor: 138214 }, yearly: { value: "16585.68", currency: "EUR", minor: 1658568 } },
      {
        currency: "EUR",
        direction: "income",
        counts: "income rows not ended",
        monthly: { value: "3850.00", currency: "EUR", minor: 385000 },
        yearly: { value: "46200.00", currency: "EUR", minor: 4620000 },
      },
      { currency: "USD", direction: "expense", counts: "subscription and bill rows not ended", monthly: { value: "1.25", currency: "USD", minor: 125 }, yearly: { value: "14.98", currency: "USD", minor: 1498 } },
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
    // By hand, the charges expected in the 365 days after today: the cleaner 52 × 90.00 = 4680.00 (390.00 a
    // month), Spotify 12 × 10.99 = 131.88, the domain once 14.98 (1.25 a month, rounded), paper 12 × 8.00 (its
    // charge due on the 20th is at the end of its grace today: not expected tomorrow); the ended gym not at all.
    expect(running.totals).to.have.length(1);
    // By hand, the charges expected in the 365 days after today: the cleaner 52 × 90.00 = 4680.00 (390.00 a
    // month), Spotify 12 × 10.99 = 131.88, the domain once 14.98 (1.25 a month, rounded), paper 13 × 8.00 =
    // 104.00 (8.67 a month): its charge due on the 20th is within its grace, so it is still expected (tomorrow),
    // then twelve more; the ended gym not at all. 4930.86 a year, 410.91 a month.
    expect(running.totals).to.deep.equal([
      { currency: "USD", direction: "expense", counts: "subscription and bill rows not ended", monthly: { value: "410.24", currency: "USD", minor: 41024 }, yearly: { value: "4922.86", currency: "USD", minor: 492286 } },
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

  it("shows a shop's varying visits apart as regular spending, follows a price change and a raised reminder, and flags a missed payment", async () => {
    now = new Date("2026-11-25T12:00:00Z");
    const me = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const wallet = (await server.call("create_wallet", { name: "Girokonto", type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id;
    const pay = (date: string, amount: string, payee: string) =>
      server.call("create_transaction", { wallet_id: wallet, date, amount, direction: "expense", payee, idempotency_key: key() }, me.token);
    // Three grocery runs at Lidl about a month apart, on no steady day, at varying amounts (the issue's).
    for (const [d, a] of [
      ["2026-08-04", "46.75"],
      ["2026-09-02", "55.10"],
      ["2026-10-06", "52.30"],
    ])
      await pay(d!, a!, "Lidl");
    // A streaming service that rose from 12.99 to 13.99 in September.
    for (const [d, a] of [
      ["2026-07-15", "12.99"],
      ["2026-08-15", "12.99"],
      ["2026-09-15", "13.99"],
      ["2026-10-15", "13.99"],
      ["2026-11-15", "13.99"],
    ])
      await pay(d!, a!, "Netflix");
    // A magazine whose October and November issues did not come: its last charge was in September.
    for (const d of ["2026-06-10", "2026-07-10", "2026-08-10", "2026-09-10"]) await pay(d, "4.50", "Zeit Abo");

    let answer = await server.call("list_recurring", { include_ended: true }, me.token);
    const by = (payee: string) => answer.recurring.find((r: any) => r.payee === payee);
    expect(by("Lidl")).to.deep.include({ kind: "regular_spending", confidence: "low", interval: "monthly" });
    // Never counted with subscriptions and bills, and listed after them.
    expect(answer.recurring[answer.recurring.length - 1].payee).to.equal("Lidl");
    expect(by("Netflix")).to.deep.include({ kind: "subscription", confidence: "high" });
    expect(by("Netflix").price.value).to.equal("13.99");
    expect(by("Netflix").price_changes).to.deep.equal([
      { date: "2026-09-15", from: { value: "12.99", currency: "EUR", minor: 1299 }, to: { value: "13.99", currency: "EUR", minor: 1399 } },
    ]);
    expect(by("Zeit Abo")).to.deep.include({ status: "ended", confidence: "low", missed: ["2026-10-10", "2026-11-10"] });
    expect(by("Zeit Abo").yearly_cost.minor).to.equal(0);
    // By hand: Netflix 12 × 13.99 = 167.88; the ended magazine not at all; Lidl in its own total, never
    // in the other: 12 visits at its latest 52.30 = 627.60 (52.30 a month).
    expect(answer.totals).to.deep.equal([
      {
        currency: "EUR",
        direction: "expense",
        counts: "subscription and bill rows not ended",
        monthly: { value: "13.99", currency: "EUR", minor: 1399 },
        yearly: { value: "167.88", currency: "EUR", minor: 16788 },
      },
      {
        currency: "EUR",
        direction: "expense",
        counts: "regular_spending rows not ended (in no other total)",
        monthly: { value: "52.30", currency: "EUR", minor: 5230 },
        yearly: { value: "627.60", currency: "EUR", minor: 62760 },
      },
    ]);

    // The person raises the price in a reminder after the last charge: the reminder's amount is the price.
    now = new Date("2026-11-26T12:00:00Z");
    await server.call(
      "create_bill_reminder",
      { name: "Netflix", payee: "Netflix", amount: "15.99", wallet_id: wallet, schedule: { frequency: "monthly", start_date: "2026-12-15" }, idempotency_key: key() },
      me.token,
    );
    answer = await server.call("list_recurring", {}, me.token);
    expect(by("Netflix").price.value).to.equal("15.99");
    expect(by("Netflix").price_changes[1]).to.deep.equal({
      date: "2026-11-26",
      from: { value: "13.99", currency: "EUR", minor: 1399 },
      to: { value: "15.99", currency: "EUR", minor: 1599 },
    });
    // 12 × 15.99 = 191.88 over the next 12 months, on the reminder's due dates.
    expect(by("Netflix").yearly_cost.value).to.equal("191.88");
  });
});
