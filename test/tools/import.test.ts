import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { girokontoCsv } from "../../scripts/bench/statement.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/statements/${name}`, import.meta.url), "utf8");

describe(`import_transactions (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  async function wallet(token: string, currency: string, opening = "0") {
    const { wallet } = await server.call(
      "create_wallet",
      { name: `W ${randomUUID().slice(0, 8)}`, type: "checking", currency, opening_balance: opening, idempotency_key: randomUUID() },
      token,
    );
    return wallet.id as string;
  }
  const importFile = (token: string, walletId: string, statement: string, extra: Record<string, unknown> = {}) =>
    server.call("import_transactions", { wallet_id: walletId, statement, idempotency_key: randomUUID(), rows_limit: 200, ...extra }, token);
  const list = async (token: string, walletId: string) => (await server.call("list_transactions", { wallet_id: walletId, limit: 200 }, token)).transactions;

  const cases: [string, string, number][] = [
    ["girokonto.csv", "EUR", 6],
    ["checking-us.csv", "USD", 5],
    ["current-account-uk.csv", "GBP", 3],
    ["bank-1x.ofx", "USD", 3],
    ["card-2x.qfx", "USD", 3],
    ["statement.camt053.xml", "EUR", 2],
    ["report.camt052.xml", "CHF", 2],
    ["bank.qif", "USD", 3],
  ];
  for (const [file, currency, rows] of cases) {
    it(`imports ${file}; a second import of it creates nothing`, async () => {
      const me = await server.createUser();
      const w = await wallet(me.token, currency);
      const skip = file.endsWith("camt053.xml") ? { skip_invalid: true } : {};
      const preview = await importFile(me.token, w, fixture(file), { dry_run: true, ...skip });
      expect(preview.status).to.equal("dry_run");
      expect(preview.counts.new).to.equal(rows);
      expect(await list(me.token, w)).to.have.length(0);
      const first = await importFile(me.token, w, fixture(file), skip);
      expect(first.status).to.equal("committed");
      expect(first.counts.created).to.equal(rows);
      expect(await list(me.token, w)).to.have.length(rows);
      const again = await importFile(me.token, w, fixture(file), skip);
      expect(again.counts).to.include({ created: 0, new: 0, duplicate: rows });
      expect(await list(me.token, w)).to.have.length(rows);
    });
  }

  it("keeps two identical coffees of one day as two rows, and a re-import adds neither", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "EUR");
    const first = await importFile(me.token, w, fixture("girokonto.csv"));
    const coffees = first.rows.filter((r: any) => r.payee === "Bäckerei Schmidt");
    expect(coffees).to.have.length(2);
    expect(coffees.every((r: any) => r.status === "new" && r.transaction_id)).to.equal(true);
    const again = await importFile(me.token, w, fixture("girokonto.csv"));
    expect(again.rows.filter((r: any) => r.payee === "Bäckerei Schmidt").map((r: any) => r.status)).to.deep.equal(
      coffees.map((c: any) => `duplicate of ${c.transaction_id}`),
    );
  });

  it("imports only the missing rows of an overlapping statement", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "USD");
    const header = "Date,Description,Amount\n";
    await importFile(me.token, w, `${header}11/01/2026,Rent,-900.00\n11/02/2026,Grocer,-20.00\n11/03/2026,Cafe,-3.00\n`);
    const overlap = await importFile(me.token, w, `${header}11/02/2026,Grocer,-20.00\n11/03/2026,Cafe,-3.00\n11/04/2026,Cinema,-12.00\n`);
    expect(overlap.counts).to.include({ rows: 3, new: 1, duplicate: 2, created: 1 });
    expect(await list(me.token, w)).to.have.length(4);
  });

  it("matches by the bank's id: the same FITID with other content is still a duplicate", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "USD");
    await importFile(me.token, w, fixture("bank-1x.ofx"));
    const edited = fixture("bank-1x.ofx").replace("<NAME>TRADER JOE'S #552", "<NAME>TRADER JOES PORTLAND");
    const again = await importFile(me.token, w, edited);
    expect(again.counts).to.include({ duplicate: 3, created: 0 });
  });

  it("marks a hand-typed transaction as a possible duplicate and imports it only when listed", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "USD");
    const typed = await server.call(
      "create_transaction",
      { wallet_id: w, date: "2026-11-21", amount: "42.75", direction: "expense", payee: "Trader Joe's", idempotency_key: randomUUID() },
      me.token,
    );
    const preview = await importFile(me.token, w, fixture("checking-us.csv"), { dry_run: true });
    expect(preview.counts).to.include({ possible_duplicate: 1, new: 4 });
    expect(preview.rows[0]).to.include({ row: 2, status: `possible duplicate of ${typed.transaction.id}` });
    const commit = await importFile(me.token, w, fixture("checking-us.csv"));
    expect(commit.counts.created).to.equal(4);
    expect(await list(me.token, w)).to.have.length(5);
    // Listed, it would be counted twice against the statement's balance: the commit waits for the person's word (issue 48).
    const refused = await server.callError(
      "import_transactions",
      { wallet_id: w, statement: fixture("checking-us.csv"), import_rows: [2], idempotency_key: randomUUID() },
      me.token,
    );
    expect(refused.data).to.include({ code: "invalid_params", field: "expected_balance" });
    expect(refused.message).to.include("would be 1910.91, where the statement says 1957.25");
    expect(await list(me.token, w)).to.have.length(5);
    const listed = await importFile(me.token, w, fixture("checking-us.csv"), { import_rows: [2], expected_balance: "1910.91" });
    expect(listed.counts.created).to.equal(1);
    expect(await list(me.token, w)).to.have.length(6);
  });

  it("does not bring back a row the person deleted after importing it", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "USD");
    const first = await importFile(me.token, w, fixture("bank.qif"));
    const gone = first.rows.find((r: any) => r.payee === "City Apartments").transaction_id;
    await server.call("delete_transaction", { transaction_id: gone, idempotency_key: randomUUID() }, me.token);
    const again = await importFile(me.token, w, fixture("bank.qif"));
    expect(again.counts.created).to.equal(0);
    expect(again.rows.find((r: any) => r.payee === "City Apartments").status).to.equal(`duplicate of ${gone} (deleted since; not imported again)`);
    expect(await list(me.token, w)).to.have.length(2);
  });

  it("reconciles the stated closing balance with the wallet's balance after the import", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "EUR", "1000.00");
    const preview = await importFile(me.token, w, fixture("statement.camt053.xml"), { dry_run: true, skip_invalid: true });
    expect(preview.reconciliation).to.deep.equal({ date: "2026-11-24", statement_balance: "957.35", wallet_balance: "957.35", difference: "0.00", likely_rows: [] });
    const committed = await importFile(me.token, w, fixture("statement.camt053.xml"), { skip_invalid: true });
    expect(committed.reconciliation).to.deep.equal(preview.reconciliation);
    const w2 = await wallet(me.token, "USD", "43.00");
    const ofx = await importFile(me.token, w2, fixture("bank-1x.ofx"), { dry_run: true });
    expect(ofx.reconciliation).to.include({ statement_balance: "2447.26", wallet_balance: "2490.26", difference: "-43.00" });
    expect(ofx.warnings.map((x: any) => x.code)).to.deep.equal(["balance_mismatch"]);
  });

  it("writes one audit entry naming every row created, with each row's snapshot", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "EUR");
    const done = await importFile(me.token, w, fixture("girokonto.csv"));
    const { changes } = await server.call("list_changes", { audit_id: done.audit_id }, me.token);
    expect(changes).to.have.length(1);
    expect(changes[0].tool).to.equal("import_transactions");
    const entry = await server.db("audit_log").where({ id: done.audit_id }).first();
    const after = JSON.parse(entry.after_json);
    const created = done.rows.filter((r: any) => r.transaction_id).map((r: any) => r.transaction_id);
    expect(after.changes.map((c: any) => c.resourceId).sort()).to.deep.equal(created.sort());
    expect(after.changes[0]).to.include({ action: "create", resourceType: "transaction", before: null });
    expect(after.changes[0].after.transaction.wallet_id).to.equal(w);
  });

  it("names the row and field of bad input and writes nothing", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "USD");
    const bad = "Date,Description,Amount\n11/02/2026,Grocer,-20.00\n11/03/2026,Cafe,twelve\n13/45/2026,Cinema,-12.00\n";
    const preview = await importFile(me.token, w, bad, { dry_run: true });
    expect(preview.counts).to.include({ new: 1, invalid: 2 });
    expect(preview.rows.filter((r: any) => r.status.startsWith("invalid")).map((r: any) => r.status)).to.deep.equal([
      'invalid: amount: amount "twelve" does not read as a number with decimal "."',
      'invalid: date: date "13/45/2026" does not read as month-first',
    ]);
    const err = await server.callError("import_transactions", { wallet_id: w, statement: bad, idempotency_key: randomUUID() }, me.token);
    expect(err.data).to.include({ code: "invalid_params", field: "statement" });
    expect(err.message).to.match(/^statement: row 3 does not read as a transaction \(its amount\), and 1 more row does not either; a preview/);
    expect(err.message, "the statement's cells stay out of the error").not.to.match(/twelve|Cafe|13\/45/);
    expect(await list(me.token, w)).to.have.length(0);

    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ statement: "hello there, this is a letter" }, "statement", /not a statement/],
      [{ statement: "<html><body>hi</body></html>" }, "statement", /neither OFX nor a CAMT/],
      [{ statement: fixture("bank-1x.ofx").replace("CHARSET:1252", "CHARSET:KOI8-R") }, "statement", /encoding "KOI8-R"/],
      [{ statement: "Date,Payee,Amount\n11/02/2026,Caf\uFFFD,-3.00\n" }, "statement", /line 2 holds an undecodable character/],
      [{ statement: fixture("checking-us.csv"), mapping: { amount: "Betrag" } }, "mapping.amount", /^mapping\.amount: there is no column "Betrag"/],
      [{ statement: fixture("statement.camt053.xml") }, "wallet_id", /statement is in EUR/],
    ];
    for (const [params, field, message] of cases) {
      const e = await server.callError("import_transactions", { wallet_id: w, idempotency_key: randomUUID(), ...params }, me.token);
      expect(e.data, JSON.stringify(params).slice(0, 80)).to.include({ code: "invalid_params", field });
      expect(e.message).to.match(message);
    }
    const range = await importFile(me.token, w, "Date,Payee,Amount\n1850-01-02,Old,-1.00\n2026-11-02,Per-row currency,-1.00\n", { dry_run: true });
    expect(range.rows[0].status).to.equal("invalid: date: 1850-01-02 is out of range");
    const rowCurrency = await importFile(me.token, w, "Date,Payee,Amount,Currency\n2026-11-02,Shop,-1.00,EUR\n", { dry_run: true });
    expect(rowCurrency.rows[0].status).to.equal("invalid: currency: EUR differs from the wallet's USD");
    expect(await list(me.token, w)).to.have.length(0);
  });

  it("counts an entry the bank has not booked and imports the booked ones (issue 48)", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "EUR");
    const done = await importFile(me.token, w, fixture("statement.camt053.xml"));
    expect(done.counts).to.include({ created: 2, invalid: 0, not_booked: 1 });
    expect(done.rows.find((r: any) => r.status.startsWith("not booked")).status).to.equal("not booked (pending): not imported");
    expect(done.warnings.map((x: any) => x.code)).to.include("not_booked");
  });

  it("takes a corrected mapping and shows the one it used", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "EUR");
    // Ambiguous dates (no day above 12): day-first is the guess for a semicolon file; the person says month-first.
    const text = "Datum;Empfänger;Betrag\n03.11.2026;Shop;-1,00\n";
    const guessed = await importFile(me.token, w, text, { dry_run: true });
    expect(guessed.mapping).to.deep.equal({ delimiter: ";", header_row: 1, decimal: ",", date_order: "day_first", date: "Datum", amount: "Betrag", payee: "Empfänger" });
    expect(guessed.rows[0].date).to.equal("2026-11-03");
    const corrected = await importFile(me.token, w, text, { dry_run: true, mapping: { date_order: "month_first" } });
    expect(corrected.rows[0].date).to.equal("2026-03-11");
  });

  it("never reads or writes another user's wallet", async () => {
    const me = await server.createUser();
    const other = await server.createUser();
    const theirs = await wallet(other.token, "USD");
    const err = await server.callError("import_transactions", { wallet_id: theirs, statement: fixture("bank.qif"), idempotency_key: randomUUID() }, me.token);
    expect(err.data).to.include({ code: "not_found", field: "wallet_id" });
  });

  it("previews 5,000 rows in one call over MAX_BODY_BYTES, a body that size is refused to any other call", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "EUR");
    const statement = girokontoCsv(5000);
    expect(Buffer.byteLength(statement)).to.be.above(256 * 1024);
    const preview = await importFile(me.token, w, statement, { dry_run: true, rows_limit: 3 });
    expect(preview.counts).to.include({ rows: 5000, new: 5000, invalid: 0 });
    expect(preview.rows).to.have.length(3);
    const big = await server.rpc({ jsonrpc: "2.0", id: 1, method: "create_wallet", params: { name: "x", type: "cash", currency: "EUR", notes: statement, idempotency_key: randomUUID() } }, me.token);
    expect(big.status).to.equal(413);
    expect(big.body.error.data.code).to.equal("payload_too_large");
  });
  it("imports a payee longer than a payee may be, cut at 140 characters with the whole text as the description", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "USD");
    const long = `SEPA-Lastschrift ${"Verwendungszweck ".repeat(20)}Ende`;
    const done = await importFile(me.token, w, `Date,Description,Amount\n2026-11-02,${long},-3.50\n`);
    expect(done.counts).to.include({ created: 1, invalid: 0 });
    const [row] = await list(me.token, w);
    expect([...row.payee]).to.have.length(140);
    expect(long.startsWith(row.payee)).to.equal(true);
    expect(row.description).to.equal(long);
  });
});
