/**
 * Issue 48 through the tool, on both engines: a fee column the reader does not know by name is read by the
 * running balance it explains; where the file is too short for that (one step of the balance), it is named
 * as the cause of the balance's difference and offered as the mapping fix, and the commit waits until the
 * person sends it (or confirms the balance); told, the fee is booked netted into its row and the wallet
 * reaches the bank's balance. Rows with a balance's name and rows not booked never become transactions.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const LINES = [
  "Date,Description,Amount,Bank fee,Balance,State",
  "2026-11-03,To Oakwood Lettings,-900.00,0.00,2894.94,COMPLETED",
  "2026-11-05,Cash at Multibanco Lisboa,-40.00,1.20,2853.74,COMPLETED",
  "2026-11-12,Payment from Acme Ltd,3150.00,0.00,6003.74,COMPLETED",
  "2026-11-24,Deliveroo,-18.50,0.00,,PENDING",
  "",
];
/** Three booked rows: two steps of the running balance, which only the fee column makes agree. */
const FEE_READ = LINES.join("\n");
/** Without the salary: one step of the balance tells no column by itself. */
const FEE = LINES.filter((l) => !l.includes("Acme")).join("\n");

describe(`import_transactions reads what each row is (issue 48, ${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  const wallet = async (token: string) =>
    (
      await server.call(
        "create_wallet",
        { name: `W ${randomUUID().slice(0, 8)}`, type: "checking", currency: "GBP", opening_balance: "3794.94", idempotency_key: randomUUID() },
        token,
      )
    ).wallet.id as string;
  const importFile = (token: string, walletId: string, extra: Record<string, unknown> = {}) =>
    server.call("import_transactions", { wallet_id: walletId, statement: FEE, idempotency_key: randomUUID(), rows_limit: 200, ...extra }, token);

  it("reads a fee column no name tells by the running balance it explains: the fee netted, the balance reached", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const done = await importFile(me.token, w, { statement: FEE_READ });
    expect(done.mapping).to.include({ fee: "Bank fee", balance: "Balance" });
    expect(done.warnings.map((x: { code: string }) => x.code)).to.deep.equal(["not_booked"]);
    expect(done.reconciliation).to.deep.include({ statement_balance: "6003.74", wallet_balance: "6003.74", difference: "0.00" });
    expect(done.rows.find((r: { row: number }) => r.row === 3)).to.include({ amount: "-41.20", description: "fee 1.20 included" });
    expect(done.counts).to.include({ created: 3, not_booked: 1 });
  });

  it("names an unread fee column as the cause, waits for the fix, and books the fee netted once told", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const preview = await importFile(me.token, w, { dry_run: true });
    expect(preview.warnings.map((x: { code: string }) => x.code)).to.deep.equal(["decision_needed", "balance_mismatch", "not_booked", "balance_column_mismatch"]);
    expect(preview.reconciliation).to.deep.include({ date: "2026-11-05", statement_balance: "2853.74", wallet_balance: "2854.94", difference: "-1.20" });
    expect(preview.warnings[1].message).to.include('Column "Bank fee" holds the difference');
    expect(preview.warnings[0].message).to.include('send mapping.fee: "Bank fee"');
    expect(preview.warnings[2].message).to.equal("1 rows are not booked by the bank (pending: row 4) and are not imported; a later statement brings the ones the bank books.");
    expect(preview.counts).to.include({ rows: 3, new: 2, not_booked: 1, to_create: 2 });

    const refused = await server.callError("import_transactions", { wallet_id: w, statement: FEE, idempotency_key: randomUUID() }, me.token);
    expect(refused.data).to.include({ code: "invalid_params", field: "expected_balance" });
    expect(refused.message).to.include("would be 2854.94, where the statement says 2853.74");
    expect((await server.call("list_transactions", { wallet_id: w, limit: 50 }, me.token)).transactions).to.have.length(0);

    const told = await importFile(me.token, w, { mapping: { fee: "Bank fee" } });
    expect(told.warnings.map((x: { code: string }) => x.code)).to.deep.equal(["not_booked"]);
    expect(told.reconciliation).to.deep.include({ statement_balance: "2853.74", wallet_balance: "2853.74", difference: "0.00" });
    expect(told.rows.find((r: { row: number }) => r.row === 3)).to.include({ amount: "-41.20", description: "fee 1.20 included" });
    const { wallets } = await server.call("get_wallet_balance", { wallet_id: w, as_of: "2026-12-31" }, me.token);
    expect(wallets[0].balance.value).to.equal("2853.74");
  });

  it("takes the person's confirmed balance instead, and only that balance", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const wrong = await server.callError("import_transactions", { wallet_id: w, statement: FEE, expected_balance: "2853.74", idempotency_key: randomUUID() }, me.token);
    expect(wrong.message).to.match(/^expected_balance: nothing was imported\. expected_balance is not the balance it leads to\./);
    const done = await importFile(me.token, w, { expected_balance: "2854.94" });
    expect(done.counts).to.include({ created: 2 });
  });
});
