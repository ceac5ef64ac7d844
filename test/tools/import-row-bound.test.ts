/**
 * A statement of more rows than one import creates (info.x-limits.bulk_write_rows) is refused right after it
 * is read, before any planning (issue 51: a 32,000-row CSV was matched against the ledger, filed by rules and
 * history, and only then refused by the cap). Counted, not timed: the refusal names the file's rows and the
 * cap, and no statement was planned (statementPlans); the cap's own worth is still planned and imported.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { limits } from "../../generated/limits.js";
import { statementPlans } from "../../src/domain/imports/import.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const CAP = limits.bulkWriteRows;

/** n expenses on days of 2026, one distinct shop each: a small file per row (32,000 rows are about 1 MB). */
function statement(n: number): string {
  const lines = ["Date,Description,Amount"];
  for (let i = 0; i < n; i++) lines.push(`2026-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")},Shop ${i},-${(i % 500) + 1}.25`);
  return `${lines.join("\n")}\n`;
}

describe(`import: the statement's rows bounded before planning (${engine})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  let me: TestUser;
  before(async () => {
    server = await startTestServer();
    me = await server.createUser({ currency: "EUR" });
  });
  after(async () => server?.close());

  const wallet = async () =>
    (await server.call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type: "checking", currency: "EUR", idempotency_key: randomUUID() }, me.token))
      .wallet.id as string;

  for (const rows of [32_000, CAP + 1]) {
    it(`${rows.toLocaleString("en")} rows: refused naming its rows and the cap, preview and commit, and never planned`, async () => {
      const w = await wallet();
      const file = statement(rows);
      for (const dry_run of [true, false]) {
        const before = statementPlans.count;
        const err = await server.callError("import_transactions", { wallet_id: w, statement: file, idempotency_key: randomUUID(), dry_run }, me.token);
        expect(statementPlans.count - before, "statements planned").to.equal(0);
        expect(err.data).to.include({ code: "invalid_params", field: "statement" });
        expect(err.message).to.include(`holds ${rows} rows to book; one import reads at most ${CAP}`);
      }
      expect(await server.db("transactions").where({ user_id: me.id, wallet_id: w }).select("id")).to.deep.equal([]);
    });
  }

  it(`${CAP.toLocaleString("en")} rows, the cap itself: planned once and previewed`, async () => {
    const w = await wallet();
    const before = statementPlans.count;
    const preview = await server.call("import_transactions", { wallet_id: w, statement: statement(CAP), idempotency_key: randomUUID(), dry_run: true }, me.token);
    expect(preview.counts).to.include({ to_create: CAP });
    expect(statementPlans.count - before).to.equal(1);
  });
});
