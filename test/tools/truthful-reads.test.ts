/**
 * Reads a chatbot can quote without checking them against each other, over the demo ledger
 * (src/demo/seed.ts) on a fixed day, plus what the ledger lacks for the question: a salary dated four
 * days ahead (the case that made list_wallets say 9,200.00 while get_wallet_balance said 6,000.00), a tag
 * used only on it, and a budget that one monthly ticket fills. Each case failed before the fix.
 * The clock is 2026-11-23 23:30 UTC, already 2026-11-24 in Berlin: "today" is the user's day.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { DEMO_CURRENCY, DEMO_TIMEZONE, seedDemoPerson } from "../../src/demo/seed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const NOW = new Date("2026-11-23T23:30:00Z");
const TODAY = "2026-11-24"; // in Europe/Berlin
const IN_FOUR_DAYS = "2026-11-28";

describe(`reads that tell the truth, over the demo ledger (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let user: TestUser;
  let wallets: { id: string; name: string; currency: string; opening_date: string }[];
  let checking: string;

  /** A tool called over MCP: its structuredContent and the text a model reads. */
  const mcp = async (name: string, args: Record<string, unknown> = {}) => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, user.token);
    expect(a.body.result?.isError ?? false, JSON.stringify(a.body)).to.equal(false);
    return { data: a.body.result.structuredContent as Record<string, any>, text: a.body.result.content[0].text as string };
  };
  const write = (name: string, args: Record<string, unknown>) => mcp(name, { ...args, idempotency_key: randomUUID() });

  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
    user = await server.createUser({ timezone: DEMO_TIMEZONE, currency: DEMO_CURRENCY });
    const caller = await authenticateBearer(server.db, `Bearer ${user.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, NOW);
    wallets = (await mcp("list_wallets")).data.wallets;
    checking = wallets.find((w) => w.name === "Everyday checking")!.id;
    await write("create_transaction", {
      wallet_id: checking,
      date: IN_FOUR_DAYS,
      amount: "3200.00",
      direction: "income",
      payee: "Nordlicht Software GmbH",
      category: "Salary",
      tags: ["bonus-month"],
    });
  });
  after(async () => server?.close());

  it("whoami gives the user's today in their timezone (no other call needed to learn it)", async () => {
    const { data, text } = await mcp("whoami");
    expect(data).to.include({ timezone: DEMO_TIMEZONE, today: TODAY });
    expect(NOW.toISOString().slice(0, 10)).to.not.equal(TODAY); // UTC is still on the day before
    expect(text).to.contain(`"today":"${TODAY}"`);
  });

  it("list_wallets: balance as of today, the future-dated salary apart (scheduled), and the day it is as of", async () => {
    const { data, text } = await mcp("list_wallets");
    expect(data.as_of).to.equal(TODAY);
    const balances = (await mcp("get_wallet_balance")).data;
    expect(balances.as_of).to.equal(TODAY);
    for (const w of data.wallets) {
      const b = balances.wallets.find((x: { wallet_id: string }) => x.wallet_id === w.id);
      expect(w.balance, w.name).to.deep.equal(b.balance);
    }
    const check = data.wallets.find((w: { id: string }) => w.id === checking);
    expect(check.scheduled).to.deep.equal({ value: "3200.00", currency: "EUR", minor: 320000 });
    for (const w of data.wallets.filter((x: { id: string }) => x.id !== checking)) expect(w, w.name).to.not.have.property("scheduled");
    // Tomorrow's view of the same ledger, four days on: the salary is in the balance and nothing is scheduled.
    const later = (await mcp("get_wallet_balance", { wallet_id: checking, as_of: IN_FOUR_DAYS })).data.wallets[0].balance;
    expect(BigInt(later.minor) - BigInt(check.balance.minor)).to.equal(320000n);
    // The text (a table of wallets) says both, and the day.
    expect(text).to.contain(`"as_of":"${TODAY}"`).and.contain('"scheduled"').and.contain('"3200.00 EUR"');
  });

  it("get_wallet_balance before a wallet was opened says it did not exist yet, not 0.00, and leaves it out of the totals", async () => {
    const opened = wallets.find((w) => w.id === checking)!.opening_date;
    const dayBefore = new Date(Date.parse(`${opened}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const { data, text } = await mcp("get_wallet_balance", { as_of: dayBefore });
    expect(data.wallets).to.have.length(wallets.length);
    for (const w of data.wallets) expect(w, w.name).to.deep.include({ balance: null, opened_on: opened });
    expect(data.totals).to.deep.equal([]);
    expect(text).to.not.contain("0.00");
    expect(text).to.contain(`"opened_on":"${opened}"`);
    // On the opening day the opening balance is there.
    const onOpening = (await mcp("get_wallet_balance", { wallet_id: checking, as_of: opened })).data.wallets[0];
    expect(onOpening.balance.value).to.equal("2140.00");
    expect(onOpening).to.not.have.property("opened_on");
  });

  it("list_categories and list_tags: last used is never after today; a future-dated use counts as scheduled", async () => {
    const categories = (await mcp("list_categories", { limit: 200 })).data.categories;
    const tags = (await mcp("list_tags", { limit: 200 })).data.tags;
    for (const l of [...categories, ...tags]) if (l.last_used !== null) expect(l.last_used <= TODAY, `${l.name} ${l.last_used}`).to.equal(true);
    const salary = categories.find((c: { name: string }) => c.name === "Salary");
    expect(salary.scheduled).to.equal(1);
    expect(salary.last_used).to.equal("2026-10-25"); // the salary of the 25th of this month is still ahead
    const bonus = tags.find((t: { name: string }) => t.name === "bonus-month");
    expect(bonus).to.deep.include({ transactions: 1, scheduled: 1, last_used: null });
    expect(bonus.spent).to.deep.equal([]);
    const rent = categories.find((c: { name: string }) => c.name === "Rent");
    expect(rent).to.not.have.property("scheduled");
  });

  it("get_budget_status: pace and projected_spend never contradict, on any day of the month, for every budget", async () => {
    for (let day = 1; day <= 24; day++) {
      const asOf = `2026-11-${String(day).padStart(2, "0")}`;
      for (const s of (await mcp("get_budget_status", { as_of: asOf })).data.budgets) {
        const allowed = BigInt(s.limit.minor) + BigInt(s.carried_in.minor);
        const projected = BigInt(s.projected_spend.minor);
        const what = `${s.name} on ${asOf}: ${s.pace}, ${s.projected_spend.value} projected of ${s.limit.value} + ${s.carried_in.value}`;
        if (s.pace === "over") expect(projected > allowed, what).to.equal(true);
        else expect(projected <= allowed, what).to.equal(true);
      }
    }
  });

  it("get_budget_status: a projection one monthly ticket dominates says so instead of extrapolating it", async () => {
    // Only the Deutschlandticket (49.00 on the 1st) is a Transport expense of the checking account.
    const { data: created } = await write("create_budget", { name: "Ticket", amount: "60.00", period: "month", categories: ["Transport"], wallet_ids: [checking] });
    const { data, text } = await mcp("get_budget_status", { budget_id: created.budget.id });
    const s = data.budgets[0];
    // Linear, 49.00 × 30 / 24 = 61.25 against 60.00 while the pace said on_track.
    expect(s.spent.value).to.equal("49.00");
    expect(s.single_charge.value).to.equal("49.00");
    expect(s.projected_spend.value).to.equal("49.00");
    expect(s.pace).to.not.equal("over");
    expect(text).to.contain('"single_charge":"49.00 EUR"');
  });

  it("list_transactions with sort reads in that order in the text a model reads", async () => {
    for (const sort of ["date_asc", "date_desc", "amount_asc", "amount_desc"]) {
      const { data, text } = await mcp("list_transactions", { sort, limit: 100 });
      const t = JSON.parse(text).transactions;
      const idColumn = t.columns.indexOf("id");
      const readIds = (t.rows as unknown[][]).map((row) => row[idColumn]);
      expect(readIds, sort).to.deep.equal(data.transactions.map((tx: { id: string }) => tx.id));
      expect(new Set(data.transactions.map((tx: { wallet_id: string }) => tx.wallet_id)).size, "several wallets on the page").to.be.greaterThan(1);
    }
    const asc = JSON.parse((await mcp("list_transactions", { sort: "date_asc", limit: 100 })).text).transactions;
    const dates = (asc.rows as unknown[][]).map((row) => row[asc.columns.indexOf("date")] as string);
    expect(dates).to.deep.equal([...dates].sort());
  });

  it("list_bill_reminders can list the reminders alone, without expanding due dates", async () => {
    const alone = await mcp("list_bill_reminders", { upcoming: false, include_inactive: true });
    expect(alone.data.upcoming).to.deep.equal([]);
    expect(alone.data.reminders.map((r: { name: string }) => r.name).sort()).to.deep.equal(["Car insurance", "Domain renewal", "Electricity", "Internet", "Rent"]);
    const year = await mcp("list_bill_reminders", { days_ahead: 366, include_inactive: true });
    expect(year.data.upcoming.length).to.be.greaterThan(10);
    expect(alone.text.length).to.be.lessThan(year.text.length / 2);
  });

  it("get_transaction_summary groups do not repeat a key as their label", async () => {
    for (const group_by of ["category", "tag", "month", "wallet", "payee"]) {
      const { data, text } = await mcp("get_transaction_summary", { date_from: "2026-01-01", date_to: TODAY, group_by });
      expect(data.groups.length, group_by).to.be.greaterThan(1);
      for (const g of data.groups) if (g.key !== null) expect(g.label, `${group_by} ${g.key}`).to.not.equal(g.key);
      if (group_by !== "wallet") expect(text, group_by).to.not.contain('"label"');
    }
    const byWallet = (await mcp("get_transaction_summary", { date_from: "2026-01-01", date_to: TODAY, group_by: "wallet" })).data.groups;
    for (const g of byWallet) expect(g.label).to.equal(wallets.find((w) => w.id === g.key)!.name);
  });

  it("a dry run answers no ids that will never exist: add_goal_funds marks its new ids provisional", async () => {
    const goal = (await mcp("list_goals")).data.goals[0];
    const savings = wallets.find((w) => w.name === "Savings")!.id;
    expect(goal.wallet_id).to.equal(savings);
    const args = { goal_id: goal.id, amount: "50.00", from_wallet_id: checking, date: TODAY };
    const preview = (await write("add_goal_funds", { ...args, dry_run: true })).data;
    expect(preview.status).to.equal("dry_run");
    expect(preview.contribution.id).to.match(/^gct_provisional/);
    expect(preview.transaction.id).to.match(/^txn_provisional/);
    expect(preview.transaction.transfer_id).to.match(/^trf_provisional/);
    const done = (await write("add_goal_funds", args)).data;
    expect(done.status).to.equal("committed");
    for (const id of [done.contribution.id, done.transaction.id]) expect(id).to.not.contain("provisional");
    const listed = (await mcp("list_transactions", { wallet_id: checking, date_from: TODAY, date_to: TODAY, direction: "transfer" })).data.transactions;
    expect(listed.map((tx: { id: string }) => tx.id)).to.include(done.transaction.id).and.not.include(preview.transaction.id);
  });
});
