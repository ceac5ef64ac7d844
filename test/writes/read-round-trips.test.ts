/**
 * Round trips per read tool: the statements each read tool's call sends to the database, counted as
 * test/writes/pipeline-statements.test.ts counts a write's, with the spec's own example arguments (ids
 * replaced by the fixture's). On Postgres every statement is a round trip (knex sends one at a time), so
 * this is the number docs/performance.md reasons with; the test fails when a tool needs more than its
 * budget below, and a tool that needs fewer should lower its budget in the same commit.
 *
 * Counted: the tool's own statements, after authentication and the limit (the token lookup, its
 * once-a-minute last_used_at write and the limiter's counter are left out: they are the fixed path,
 * measured in the benchmark; on Postgres the token is cached after the first call).
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { exampleParams, READ_NOW, seedReadLedger, type ReadLedger } from "../helpers/read-ledger.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

/**
 * A read tool sends one statement (docs/adding-a-tool.md, "What every tool must meet"): a new read tool
 * needs no entry here. A different figure is an entry with its reason (measured 2026-11-25).
 */
const DEFAULT_BUDGET = 1;
const BUDGET: Record<string, { postgres: number; sqlite: number }> = {
  // The budgets, then their spending from the day totals (docs/history/perf-the-fixed-path-on-postgres-token-and-limit-without-a-round-trip.md, "Round trips per read tool").
  list_budgets: { postgres: 2, sqlite: 2 },
  get_budget_status: { postgres: 2, sqlite: 2 },
  // Answered without the database (the token, the registry, arithmetic): none may creep in.
  whoami: { postgres: 0, sqlite: 0 },
  list_capabilities: { postgres: 0, sqlite: 0 },
  calculate: { postgres: 0, sqlite: 0 },
  // Today's balances with the rates (get_net_worth's statement), and list_recurring's statement with the
  // wallets' names and the future-dated rows up to the horizon, sent at once (docs/decisions.md#cash-flow-forecast).
  get_cash_flow_forecast: { postgres: 2, sqlite: 2 },
};

/** What a read tool may send on this engine: its entry, or one statement. */
const budgetOf = (tool: string): number => BUDGET[tool]?.[engine] ?? DEFAULT_BUDGET;

/** The failure's message: what the tool sent and the step to take. */
function overBudget(tool: string, statements: readonly string[], budget: number): string {
  return (
    `${tool} sent ${statements.length} statements, more than its budget of ${budget}. Make its domain function one statement ` +
    `(docs/adding-a-tool.md, "What every tool must meet": start from transactionsQuery and join what the answer needs), or, if it ` +
    `cannot be, give it an entry in BUDGET in test/writes/read-round-trips.test.ts saying why. The statements:\n${statements.join("\n")}`
  );
}

const FIXED_PATH = /rate_limits|FROM mcp_tokens t JOIN users u|update "mcp_tokens" set "last_used_at"/i;

async function statementsOf(db: Knex, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (q: { sql: string }) => {
    if (!FIXED_PATH.test(q.sql)) seen.push(q.sql);
  };
  db.on("query", listener);
  try {
    await fn();
  } finally {
    db.off("query", listener);
  }
  return seen;
}

describe(`read tools: round trips (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let u: TestUser;
  // Empty until seeded: the shapes' titles below read their params when the file loads.
  let ledger: ReadLedger = { wallet: "", budget: "", goal: "" };

  before(async () => {
    server = await startTestServer({}, { now: () => READ_NOW });
    u = await server.createUser();
    ledger = await seedReadLedger(server, u.token);
  });
  after(async () => server?.close());

  const readTools = [...toolsByName.values()].filter((t) => t.kind === "read").map((t) => t.name);

  it("has an entry only for read tools, each different from the default", () => {
    expect(
      Object.keys(BUDGET).filter((t) => !(readTools as string[]).includes(t)),
      "entries for tools that are not read tools of the registry: remove them",
    ).to.deep.equal([]);
    expect(
      Object.entries(BUDGET)
        .filter(([, b]) => b.postgres === DEFAULT_BUDGET && b.sqlite === DEFAULT_BUDGET)
        .map(([t]) => t),
      `entries equal to the default of ${DEFAULT_BUDGET}: remove them`,
    ).to.deep.equal([]);
  });

  it("fails a tool over its budget with the step to take", () => {
    expect(budgetOf("a_read_tool_added_later")).to.equal(DEFAULT_BUDGET);
    const message = overBudget("a_read_tool_added_later", ["select 1", "select 2"], DEFAULT_BUDGET);
    expect(message).to.include("docs/adding-a-tool.md").and.include("BUDGET");
  });

  // The benchmark's shapes, where they differ from the spec's examples: a wallet's page (the wallet checked
  // in the page's statement), a full first page (its count), a non-empty list of changes (touched rows).
  const SHAPES: { tool: string; params: () => Record<string, unknown>; budget: number }[] = [
    { tool: "list_transactions", params: () => ({ wallet_id: ledger.wallet, date_from: "2026-03-01", date_to: "2026-03-31", limit: 2 }), budget: 1 },
    { tool: "get_wallet_balance", params: () => ({ wallet_id: ledger.wallet }), budget: 1 },
    { tool: "list_changes", params: () => ({ limit: 15 }), budget: 1 },
    { tool: "get_goal_progress", params: () => ({}), budget: 1 },
  ];
  for (const shape of SHAPES) {
    it(`${shape.tool} ${JSON.stringify(Object.keys(shape.params()))} stays within ${shape.budget}`, async () => {
      const params = shape.params();
      const first = await server.call(shape.tool, params, u.token);
      expect(first, "an answer").to.not.equal(undefined);
      const statements = await statementsOf(server.db, () => server.call(shape.tool, params, u.token));
      console.log(`      ${shape.tool}: ${statements.length} statement(s) (budget ${shape.budget})`);
      expect(statements.length, overBudget(shape.tool, statements, shape.budget)).to.be.at.most(shape.budget);
    });
  }

  for (const tool of readTools) {
    it(`${tool} stays within its budget`, async () => {
      const params = exampleParams(tool, ledger);
      await server.call(tool, params, u.token); // warms the token cache on Postgres
      const statements = await statementsOf(server.db, () => server.call(tool, params, u.token));
      const budget = budgetOf(tool);
      console.log(`      ${tool}: ${statements.length} statement(s) (budget ${budget})`);
      if (process.env.SHOW_STATEMENTS) for (const sql of statements) console.log(`        ${sql.slice(0, 160)}`);
      expect(statements.length, overBudget(tool, statements, budget)).to.be.at.most(budget);
    });
  }
});
