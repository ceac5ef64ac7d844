/**
 * Reads checked for cost, beside their round trips (test/writes/read-round-trips.test.ts): every statement
 * each read tool sends, with the spec's own example arguments, is explained on this engine, and none may
 * read the person's ledger once per row of something else (test/helpers/query-plans.ts says how a plan is
 * read). A read can pass every other check (one statement, its answer budget, the replay, both engines)
 * and still scan the ledger per row; this is the check that sees it. The trap below is the shape a
 * newcomer's read once had: each of the largest expenses with how often its payee was paid, counted by a
 * correlated subquery over the person's whole ledger.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { OPENRPC_PATH } from "../../src/app.js";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { capture, perRowLedgerReads } from "../helpers/query-plans.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const FIXED_PATH = /rate_limits|FROM mcp_tokens t JOIN users u|mcp_tokens/i;
const SPEC = JSON.parse(readFileSync(OPENRPC_PATH, "utf8")) as { methods: { name: string; examples?: { params?: { name: string; value: unknown }[] }[] }[] };

describe(`read tools: no per-row read of the ledger in any plan (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let u: TestUser;
  const ids: Record<string, string> = {};

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-20T12:00:00Z") });
    u = await server.createUser();
    const key = () => randomUUID();
    ids.wallet = (await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    for (let i = 0; i < 12; i++) {
      const payee = ["Blue Bottle", "Rent Co", "Grocer"][i % 3];
      await server.call(
        "create_transaction",
        {
          wallet_id: ids.wallet,
          date: `2026-03-${String(1 + i).padStart(2, "0")}`,
          amount: `${10 + i}.40`,
          direction: "expense",
          payee,
          category: "Dining",
          tags: ["food"],
          idempotency_key: key(),
        },
        u.token,
      );
    }
    ids.budget = (
      await server.call(
        "create_budget",
        { name: "Dining out", amount: "150.00", currency: "USD", period: "month", categories: ["Dining"], start_date: "2026-03-01", idempotency_key: key() },
        u.token,
      )
    ).budget.id;
    ids.goal = (await server.call("create_goal", { name: "Japan trip", target_amount: "4000.00", currency: "USD", idempotency_key: key() }, u.token)).goal.id;
    await server.call("add_goal_funds", { goal_id: ids.goal, amount: "100.00", idempotency_key: key() }, u.token);
  });
  after(async () => server?.close());

  it("sees the trap: a correlated count over the person's ledger per row is refused, the same answer by one grouped join is not", async () => {
    const trap = {
      sql:
        "select t.id, t.payee, t.amount_minor, (select count(*) from transactions t2 where t2.user_id = t.user_id and t2.notes is not distinct from t.notes) as times " +
        "from transactions t where t.user_id = ? and t.amount_minor < 0 order by t.amount_minor limit 5",
      bindings: [u.id],
    };
    const found = await perRowLedgerReads(server.db, trap, engine);
    expect(found, "the trap's per-row read").to.have.length.at.least(1);
    expect(found.join("\n")).to.include("transactions");
    const grouped = {
      sql:
        "select t.id, t.payee, t.amount_minor, c.times from transactions t join (select lower(payee) as p, count(*) as times from transactions " +
        "where user_id = ? group by lower(payee)) c on c.p = lower(t.payee) where t.user_id = ? and t.amount_minor < 0 order by t.amount_minor limit 5",
      bindings: [u.id, u.id],
    };
    expect(await perRowLedgerReads(server.db, grouped, engine)).to.deep.equal([]);
  });

  const readTools = [...toolsByName.values()].filter((t) => t.kind === "read").map((t) => t.name);
  for (const tool of readTools) {
    it(`${tool}: no statement reads the ledger once per row`, async () => {
      const example = SPEC.methods.find((m) => m.name === tool)?.examples?.[0];
      const params: Record<string, unknown> = Object.fromEntries((example?.params ?? []).map((p) => [p.name, p.value]));
      if ("budget_id" in params) params.budget_id = ids.budget;
      if ("goal_id" in params) params.goal_id = ids.goal;
      if ("wallet_id" in params) params.wallet_id = ids.wallet;
      await server.call(tool, params, u.token);
      const statements = await capture(server.db, () => server.call(tool, params, u.token), FIXED_PATH);
      const found: string[] = [];
      for (const s of statements) for (const f of await perRowLedgerReads(server.db, s, engine)) found.push(`${f}\n    in: ${s.sql.slice(0, 400)}`);
      expect(
        found,
        `${tool} reads the person's ledger once per row. Read it once (a grouped join, a window, or an index on what the rows are matched by: docs/adding-a-tool.md, "What every tool must meet")`,
      ).to.deep.equal([]);
    });
  }
});
