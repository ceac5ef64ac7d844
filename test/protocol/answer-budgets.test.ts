/**
 * Answers sized for a model (docs/decisions.md#what-a-model-reads), over the demo ledger (several months, two currencies,
 * budgets, goals, bills): the content text of list_capabilities with every scope, of each listed
 * transaction, and of every read at its largest answer stays within src/mcp/answer-budgets.ts.
 * The text is the compact rendering of structuredContent (src/mcp/model-text.ts): a page of transactions
 * is a table, so a transaction costs its row and a share of the column names and wallet ids stated once
 * (scripts/answer-measure.ts measures it; npm run surface writes the same figures into docs/tool-surface.md).
 *
 * The server runs on the same fixed moment and seeded ids as that measure (DEMO_LEDGER_AT, seededIds), so
 * the figures depend neither on the day nor on chance: the demo ledger holds the current month's days so far
 * (105 transactions on the 24th; 87 to 100 from the 1st to the 17th, when "more than 100" failed), and a
 * random id moves a row's cost (52 to 60 of its budget of 60 over 600 sets of random ids).
 */
import { expect } from "chai";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { ANSWER_BUDGETS } from "../../src/mcp/answer-budgets.js";
import { modelData, modelText } from "../../src/mcp/model-text.js";
import {
  DEMO_LEDGER_AT,
  listedTransactionCosts,
  measureAnswers,
  schemaLargestArgs,
  seededIds,
  tokens,
  type AnswerMeasure,
  type TransactionCost,
} from "../../scripts/answer-measure.js";
import { todayInTimeZone } from "../../src/calendar/time-zones.js";
import { DEMO_TIMEZONE, seedDemoPerson } from "../../src/demo/seed.js";
import { seededRandom } from "../../src/random.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

/** The assertion of the listed-transaction budget (expenses and income; a transfer leg carries two more ids). */
function expectListedWithinBudget(costs: readonly TransactionCost[]) {
  for (const c of costs) if (c.direction !== "transfer") expect(c.tokens, c.text).to.be.at.most(ANSWER_BUDGETS.listedTransactionTokens);
}

/**
 * Reads a page's text back the way a model must: each row with its columns, the fields stated once for
 * every row and its wallet id from wallet_ids. Gives one record per transaction, keyed by id.
 */
function readTable(page: Record<string, any>): Map<string, Record<string, unknown>> {
  const t = (modelData(page) as { transactions: any }).transactions;
  const records = new Map<string, Record<string, unknown>>();
  for (const row of t.rows as unknown[][]) {
    expect(row.length, JSON.stringify(row)).to.be.at.most(t.columns.length);
    const r: Record<string, unknown> = { ...t.on_every_row };
    row.forEach((cell, i) => {
      if (t.columns[i] === "wallet_ids_index") r.wallet_id = t.wallet_ids[cell as number];
      else if (cell !== null) r[t.columns[i]] = cell;
    });
    records.set(r.id as string, r);
  }
  return records;
}

describe(`answers sized for a model (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let user: TestUser;
  let measure: AnswerMeasure;
  const call = async (name: string, args: Record<string, unknown>) => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, user.token);
    expect(a.body.result?.isError ?? false, JSON.stringify(a.body)).to.equal(false);
    // The text is the result, then (for a tool with an MCP App) one line naming the view (src/mcp/tool-result.ts).
    expect(a.body.result.content[0].text.split("\n\nApp view: ")[0]).to.equal(modelText(a.body.result.structuredContent));
    return a.body.result.structuredContent as Record<string, any>;
  };
  before(async () => {
    server = await startTestServer({}, { now: () => DEMO_LEDGER_AT, ids: seededIds(seededRandom(20261124)) });
    user = await server.createUser({ timezone: DEMO_TIMEZONE, currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${user.token}`, server.config.tokenPepper, DEMO_LEDGER_AT);
    await seedDemoPerson(server.services.dispatch, caller, DEMO_LEDGER_AT);
    measure = await measureAnswers(call, todayInTimeZone(DEMO_TIMEZONE, DEMO_LEDGER_AT));
  });
  after(async () => server.close());

  it(`list_capabilities with every scope is at most ${ANSWER_BUDGETS.listCapabilitiesTokens} tokens`, async () => {
    const data = await call("list_capabilities", {});
    expect(data.tools.length).to.be.greaterThan(20);
    expect(measure.capabilities).to.be.at.most(ANSWER_BUDGETS.listCapabilitiesTokens);
  });

  it(`a listed transaction is at most ${ANSWER_BUDGETS.listedTransactionTokens} tokens: no nulls, no minor, no timestamps, the currency once`, async () => {
    const page = await call("list_transactions", { limit: 50 });
    expect(page.transactions.length).to.equal(50);
    const costs = listedTransactionCosts(page);
    expectListedWithinBudget(costs);
    // Every transaction of the ledger, on the default page and on the largest (measureAnswers).
    expect(measure.transactions.length).to.be.greaterThan(100);
    expectListedWithinBudget(measure.transactions);
    for (const tx of page.transactions) {
      const t = costs.find((c) => c.id === tx.id)!.text;
      // null is only a whole cell: the field is absent (structuredContent has null or an empty list).
      expect(t.replace(/(?<=[[,])null(?=[,\]])/g, ""), t).to.not.match(/null|minor|created_at|updated_at/);
      // The currency follows an amount (" EUR"); a random id may hold the letters EUR too.
      expect(t.split(` ${tx.currency}`).length - 1, t).to.equal(1);
    }
  });

  it("the table loses nothing: each transaction's id, wallet and fields read back from its row", async () => {
    for (const args of [{ limit: 50 }, { limit: 200 }, { limit: 7 }]) {
      const page = await call("list_transactions", args);
      const read = readTable(page);
      expect(read.size).to.equal(page.transactions.length);
      for (const tx of page.transactions) expect(read.get(tx.id), tx.id).to.deep.equal(modelData(tx));
      const wallets = new Set(page.transactions.map((tx: { wallet_id: string }) => tx.wallet_id));
      // Each wallet id is written once per page, however many of its transactions are listed.
      const text = modelText(page);
      const t = (modelData(page) as { transactions: { wallet_ids?: string[]; on_every_row?: { wallet_id?: string } } }).transactions;
      if (t.wallet_ids)
        expect(t.wallet_ids)
          .to.have.members([...wallets])
          .and.have.length(wallets.size);
      else for (const w of wallets) expect(text.split(`"wallet_id":"${w}"`).length - 1, w as string).to.equal(1);
      // The rows read in the page's order.
      expect([...read.keys()]).to.deep.equal(page.transactions.map((tx: { id: string }) => tx.id));
    }
  });

  it(`the budget can fail: a transaction whose row exceeds ${ANSWER_BUDGETS.listedTransactionTokens} tokens is caught`, async () => {
    const page = await call("list_transactions", { limit: 50 });
    const long = structuredClone(page);
    const victim = long.transactions.find((tx: { direction: string }) => tx.direction === "expense");
    // Long enough to exceed the budget whatever the row's random ids cost (a row costs at most 56 without it).
    victim.description = "Dinner with the whole team after the quarterly planning offsite in Hamburg, paid by card, to be split later between five colleagues";
    const costs = listedTransactionCosts(long);
    expect(costs.find((c) => c.id === victim.id)!.tokens).to.be.greaterThan(ANSWER_BUDGETS.listedTransactionTokens);
    expect(() => expectListedWithinBudget(costs)).to.throw(`at most ${ANSWER_BUDGETS.listedTransactionTokens}`);
    // A page whose transactions each sit in another wallet states a wallet id per row: over budget too.
    const scattered = structuredClone(page);
    scattered.transactions.forEach((tx: { wallet_id: string }, i: number) => (tx.wallet_id = `wal_${String(i).padStart(2, "0")}${tx.wallet_id.slice(6)}`));
    expect(() => expectListedWithinBudget(listedTransactionCosts(scattered))).to.throw(`at most ${ANSWER_BUDGETS.listedTransactionTokens}`);
  });

  it(`a bulk edit's preview is at most ${ANSWER_BUDGETS.bulkPreviewTokens} tokens, its 20 rows shown of every expense`, () => {
    expect(measure.bulkPreview.matched).to.be.greaterThan(20);
    expect(measure.bulkPreview.tokens).to.be.at.most(ANSWER_BUDGETS.bulkPreviewTokens);
  });

  it(`an import preview of 5,000 rows is at most ${ANSWER_BUDGETS.importPreviewTokens} tokens at 20 rows, ${ANSWER_BUDGETS.anyAnswerTokens} at 200`, () => {
    expect(measure.importPreview.map((p) => p.rows_limit)).to.deep.equal([20, 200]);
    expect(measure.importPreview[0]!.tokens).to.be.at.most(ANSWER_BUDGETS.importPreviewTokens);
    expect(measure.importPreview[1]!.tokens).to.be.at.most(ANSWER_BUDGETS.anyAnswerTokens);
  });

  it(`a forecast a year ahead is at most ${ANSWER_BUDGETS.forecastTokens} tokens`, () => {
    const forecast = measure.largest.find((l) => l.tool === "get_cash_flow_forecast")!;
    expect(forecast.tokens).to.be.at.most(ANSWER_BUDGETS.forecastTokens);
  });

  it(`no read answers more than ${ANSWER_BUDGETS.anyAnswerTokens} tokens at its largest`, async () => {
    const names = measure.largest.map((l) => l.tool);
    for (const t of [
      "list_transactions",
      "get_transaction_summary",
      "list_budgets",
      "get_budget_status",
      "list_goals",
      "get_goal_progress",
      "list_wallets",
      "get_wallet_balance",
      "list_bill_reminders",
      "search_product_knowledge",
      "list_capabilities",
      "whoami",
    ]) {
      expect(names).to.include(t);
    }
    for (const l of measure.largest) expect(l.tokens, l.tool).to.be.at.most(ANSWER_BUDGETS.anyAnswerTokens);
    expect(tokens(modelText(await call("list_transactions", { limit: 200 })))).to.equal(measure.largest.find((l) => l.tool === "list_transactions")!.tokens);
  });
});

describe("a read tool added later is measured at its largest arguments, not its defaults", () => {
  it("takes the widest range, the largest page, every include_ flag, then each enum value in turn", () => {
    const schema = {
      properties: {
        date_from: { type: "string" },
        date_to: { type: "string" },
        limit: { type: "integer", maximum: 50 },
        include_archived: { type: "boolean" },
        group_by: { type: "string", enum: ["payee", "category"] },
        query: { type: "string" },
      },
    };
    const base = { date_from: "1900-01-01", date_to: "2027-03-16", limit: 50, include_archived: true };
    expect(schemaLargestArgs(schema, "2026-03-15")).to.deep.equal([base, { ...base, group_by: "payee" }, { ...base, group_by: "category" }]);
  });
});
