/**
 * docs/examples.md: each question there is the one call its block names, on the demo ledger as of the
 * page's date, and the answer says what the page says it does.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const page = readFileSync(new URL("../../docs/examples.md", import.meta.url), "utf8");
const blocks = [...page.matchAll(/```json example\n([\s\S]*?)```/gu)].map((m) => JSON.parse(m[1]!) as { tool: string; params: Record<string, unknown> });

describe(`docs/examples.md (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let token: string;
  const now = new Date("2026-11-28T10:00:00Z");
  before(async () => {
    server = await startTestServer({}, { now: () => now });
    const alex = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    token = alex.token;
    await seedDemoPerson(server.services.dispatch, await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper), now);
  });
  after(async () => server?.close());

  it("holds the three questions, each one call", () => {
    expect(blocks.map((b) => b.tool)).to.deep.equal(["list_recurring", "get_cash_flow_forecast", "get_cash_flow_forecast"]);
  });

  it("12 months of regular payments: the totals are what a 365-day forecast takes out for them", async () => {
    const answer = await server.call(blocks[0]!.tool, blocks[0]!.params, token);
    const eur = answer.totals.find((t: any) => t.currency === "EUR" && t.direction === "expense");
    const payees = answer.recurring.map((r: any) => r.payee);
    expect(payees).to.include("HUK-Coburg");
    const counted = answer.recurring.filter((r: any) => r.price.currency === "EUR" && r.direction === "expense" && r.kind !== "regular_spending");
    expect(counted.reduce((s: number, r: any) => s + r.yearly_cost.minor, 0)).to.equal(eur.yearly.minor);
    const withAll = await server.call("get_cash_flow_forecast", { days: 365 }, token);
    const withNone = await server.call("get_cash_flow_forecast", { days: 365, cancel: counted.map((r: any) => r.payee) }, token);
    const last = (f: any) => Math.round(Number(f.daily.total[f.daily.total.length - 1]) * 100);
    expect(last(withNone) - last(withAll)).to.equal(eur.yearly.minor);
  });

  it("until payday: the salary on the 25th, each wallet's low point, and what is safe to spend", async () => {
    const answer = await server.call(blocks[1]!.tool, blocks[1]!.params, token);
    expect(answer.next_income).to.deep.include({ date: "2026-12-25", label: "Nordlicht Software GmbH", source: "regular_payment" });
    expect(answer.safe_until).to.equal("2026-12-24");
    const checking = answer.wallets.find((w: any) => w.name === "Everyday checking");
    expect(checking.lowest.date >= "2026-11-28" && checking.lowest.date <= "2026-12-28").to.equal(true);
    // Safe to spend is the lowest total before payday: never more than today's total.
    expect(answer.safe_to_spend.minor).to.be.at.most(answer.balance.minor);
  });

  it("a 1,200 trip on 10 February: the total drops by it from that day, and nothing is written", async () => {
    const before = await server.call("list_changes", { limit: 1 }, token);
    const withTrip = await server.call(blocks[2]!.tool, blocks[2]!.params, token);
    const without = await server.call("get_cash_flow_forecast", { days: 90 }, token);
    const at = (f: any, day: string) => Math.round(Number(f.daily.total[(Date.parse(day) - Date.parse(f.as_of)) / 86_400_000]) * 100);
    expect(at(without, "2027-02-09") - at(withTrip, "2027-02-09")).to.equal(0);
    expect(at(without, "2027-02-10") - at(withTrip, "2027-02-10")).to.equal(120000);
    expect(withTrip.low_point_events.some((e: any) => e.source === "what_if" && e.label === "Trip")).to.equal(withTrip.lowest.date >= "2027-02-10");
    expect((await server.call("list_changes", { limit: 1 }, token)).changes).to.deep.equal(before.changes);
  });
});
