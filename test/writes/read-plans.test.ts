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
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { capture, perRowLedgerReads } from "../helpers/query-plans.js";
import { exampleParams, READ_NOW, seedReadLedger, type ReadLedger } from "../helpers/read-ledger.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const FIXED_PATH = /rate_limits|FROM mcp_tokens t JOIN users u|mcp_tokens/i;

describe(`read tools: no per-row read of the ledger in any plan (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let u: TestUser;
  let ledger: ReadLedger;

  before(async () => {
    server = await startTestServer({}, { now: () => READ_NOW });
    u = await server.createUser();
    ledger = await seedReadLedger(server, u.token);
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
      const params = exampleParams(tool, ledger);
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
