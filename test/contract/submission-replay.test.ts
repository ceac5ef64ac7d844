/**
 * The directory reviewer's test cases hold on the sample account (issue 52 item 5): every positive case of
 * chatgpt-app-submission.json is played against `finance-mcp demo`'s person (src/demo/seed.ts, written
 * through the tools, ending today) with the call a chatbot makes for its prompt, and what the case's
 * expected_output says is checked on the answer: the month, the wallet and category it names, the fields it
 * promises. A case without a replay here fails, so a new or changed case must come with one.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { tools } from "../../generated/registry.js";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { monthStart, plusDays } from "../../src/calendar/days.js";
import { todayInTimeZone } from "../../src/calendar/time-zones.js";
import { DEMO_TIMEZONE, seedDemoPerson } from "../../src/demo/seed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

interface Case {
  user_prompt: string;
  tools_triggered: string | null;
  expected_output: string;
}
const submission = JSON.parse(readFileSync(new URL("../../chatgpt-app-submission.json", import.meta.url), "utf8")) as {
  test_cases: Case[];
  negative_test_cases: Case[];
};

type Call = <T = any>(tool: string, params: Record<string, unknown>) => Promise<T>;

/** What a chatbot calls for each case's prompt, and what the expected output promises, checked. */
const REPLAYS: Record<string, (call: Call, c: Case, today: string) => Promise<void>> = {
  async get_transaction_summary(call, c, today) {
    expect(c.user_prompt).to.include("last month");
    const from = monthStart(today, -1);
    const to = plusDays(monthStart(today, 0), -1);
    const s = await call("get_transaction_summary", { date_from: from, date_to: to, group_by: "category" });
    const eur = s.totals.find((t: any) => t.currency === "EUR");
    expect(Number(eur.income.value), "income last month").to.be.greaterThan(0);
    expect(Number(eur.expenses.value), "expenses last month").to.be.greaterThan(0);
    expect(eur.net.value).to.be.a("string");
    const categories = s.groups.filter((g: any) => Number(g.expenses.value) > 0).map((g: any) => g.key);
    expect(categories).to.include.members(["Groceries", "Eating out", "Rent"]);
  },
  async create_transaction(call, c, today) {
    const [, amount, payee, walletWord] = /paid ([\d.]+) at (.+?) today with my (\w+) account/.exec(c.user_prompt) ?? [];
    const category = /under (.+?) and/.exec(c.expected_output)?.[1];
    expect(category, "the case names a category").to.be.a("string");
    const categories = (await call("list_categories", {})).categories.map((x: any) => x.name);
    expect(categories, "the demo person has the category the case names").to.include(category);
    const wallet = (await call("list_wallets", {})).wallets.find((w: any) => w.name.toLowerCase().includes(walletWord!));
    expect(wallet, `a ${walletWord} wallet`).to.not.equal(undefined);
    const r = await call("create_transaction", {
      wallet_id: wallet.id,
      date: today,
      amount,
      direction: "expense",
      payee,
      description: "Coffee with Sam",
      category,
      idempotency_key: randomUUID(),
    });
    expect(r.status).to.equal("committed");
    expect(r.transaction).to.include({ category, payee, wallet_id: wallet.id });
    expect(r.transaction.amount.value).to.equal(`-${amount}`);
  },
  async get_budget_status(call, c) {
    expect(c.user_prompt).to.include("groceries budget");
    const status = await call("get_budget_status", {});
    const groceries = status.budgets.find((b: any) => b.name === "Groceries");
    expect(groceries, "a groceries budget").to.not.equal(undefined);
    for (const field of ["spent", "remaining", "pace", "projected_spend"]) expect(groceries, field).to.have.property(field);
  },
  async list_recurring(call) {
    const r = await call("list_recurring", {});
    const netflix = r.recurring.find((x: any) => x.payee === "Netflix");
    expect(netflix, "the demo's Netflix subscription").to.not.equal(undefined);
    expect(netflix.interval).to.equal("monthly");
    for (const field of ["typical_amount", "monthly_cost", "yearly_cost"]) expect(netflix, field).to.have.property(field);
  },
  async get_cash_flow_forecast(call, c, today) {
    const [, amount] = /([\d,]+) euro trip four weeks from now/.exec(c.user_prompt) ?? [];
    const f = await call("get_cash_flow_forecast", {
      days: 30,
      what_if: [{ in_days: 28, amount: `${amount!.replace(",", "")}.00`, direction: "expense", label: "Trip" }],
    });
    expect(f.until).to.equal(plusDays(today, 30));
    expect(f.lowest.date).to.be.a("string");
    expect(f.safe_to_spend.value).to.be.a("string");
    const without = await call("get_cash_flow_forecast", { days: 30 });
    const end = (x: any) => Number(x.daily.total[x.daily.total.length - 1]);
    expect(Math.round((end(without) - end(f)) * 100), "the trip is in the answer").to.equal(120000);
  },
};

describe(`the directory's test cases on the demo person (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let alex: TestUser;
  let today: string;
  before(async () => {
    server = await startTestServer();
    alex = await server.createUser({ timezone: DEMO_TIMEZONE, currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller);
    today = todayInTimeZone(DEMO_TIMEZONE, new Date());
  });
  after(async () => server?.close());

  it("has a replay for every positive case", () => {
    expect(submission.test_cases.map((c) => c.tools_triggered).sort()).to.deep.equal(Object.keys(REPLAYS).sort());
  });

  for (const c of submission.test_cases) {
    it(`${c.tools_triggered}: "${c.user_prompt}"`, async () => {
      const call: Call = (tool, params) => server.call(tool, params, alex.token);
      await REPLAYS[c.tools_triggered!]!(call, c, today);
    });
  }

  it("the negative cases ask for what no tool does (moving money, market prices, tax filing)", () => {
    expect(submission.negative_test_cases.every((c) => c.tools_triggered === null)).to.equal(true);
    expect(tools.map((t) => t.name).filter((n) => /send|payment_order|stock|share_price|quote|tax/.test(n))).to.deep.equal([]);
  });
});
