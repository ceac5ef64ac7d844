/**
 * A remembered CSV mapping never silently overrules the file's own evidence (issue 51, items 6–7;
 * docs/decisions.md#remembered-mapping-and-evidence): a file whose dates decide their order (a day above 12)
 * is read in that order even when the wallet remembers the other one, and the answer says so and how to
 * read it as remembered. Headerless files of one width but other column kinds are other layouts.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

// Nothing in October's file tells the date order: the person said month-first, and it is remembered.
const october = "Kontostand vom 31.10.2026:;100,00 €\nDatum;Empfänger;Betrag\n01/10/2026;Rent;-50,00\n02/10/2026;Grocer;-20,00\n";
// The same layout; "25.11.2026" can only be day-first, so the file itself says its order.
const november = "Kontostand vom 30.11.2026:;30,00 €\nDatum;Empfänger;Betrag\n25/11/2026;Rent;-50,00\n01/11/2026;Grocer;-20,00\n03/11/2026;Cafe;-3,20\n";

describe(`import_transactions: a remembered mapping and the file's own evidence (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  before(async () => {
    server = await startTestServer();
    me = await server.createUser();
  });
  after(async () => server?.close());

  const wallet = async () =>
    (await server.call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type: "checking", currency: "EUR", idempotency_key: randomUUID() }, me.token))
      .wallet.id as string;
  const importFile = (walletId: string, statement: string, extra: Record<string, unknown> = {}) =>
    server.call("import_transactions", { wallet_id: walletId, statement, idempotency_key: randomUUID(), ...extra }, me.token);

  it("a file whose dates say day-first is read day-first despite a remembered month-first, with a warning offering the remembered order", async () => {
    const w = await wallet();
    await importFile(w, october, { mapping: { date_order: "month_first" } });
    const preview = await importFile(w, november, { dry_run: true });
    expect(preview.mapping_source.source).to.equal("remembered");
    expect(preview.mapping.date_order).to.equal("day_first");
    expect(preview.counts).to.include({ invalid: 0, new: 3 });
    expect(preview.rows.map((r: any) => r.date).sort()).to.deep.equal(["2026-11-01", "2026-11-03", "2026-11-25"]);
    const warning = preview.warnings.find((x: any) => x.code === "mapping_remembered_overruled");
    expect(warning, JSON.stringify(preview.warnings)).to.be.an("object");
    expect(warning.message).to.include("month-first").and.include("day-first").and.include('mapping.date_order "month_first"');
    // The person's word still decides: sent, the remembered order reads the file (and day 25 is invalid).
    const asSaid = await importFile(w, november, { dry_run: true, mapping: { date_order: "month_first" } });
    expect(asSaid.counts).to.include({ invalid: 1 });
    expect(asSaid.warnings.map((x: any) => x.code)).to.not.include("mapping_remembered_overruled");
  });

  it("a file that does not tell its date order is still read with the remembered one, without that warning", async () => {
    const w = await wallet();
    await importFile(w, october, { mapping: { date_order: "month_first" } });
    const ambiguous = "Kontostand vom 30.11.2026:;30,00 €\nDatum;Empfänger;Betrag\n01/11/2026;Rent;-50,00\n03/11/2026;Cafe;-3,20\n";
    const preview = await importFile(w, ambiguous, { dry_run: true });
    expect(preview.mapping.date_order).to.equal("month_first");
    expect(preview.warnings.map((x: any) => x.code)).to.not.include("mapping_remembered_overruled");
  });

  it("headerless files of one width but other column kinds do not share a remembered mapping; the same kinds do", async () => {
    const w = await wallet();
    // date; amount; payee
    await importFile(w, "2026-11-02;-50,00;Rent\n2026-11-03;-20,00;Grocer\n");
    const same = await importFile(w, "2026-12-02;-50,00;Rent\n2026-12-05;-7,00;Bakery\n", { dry_run: true });
    expect(same.mapping_source.source).to.equal("remembered");
    expect(same.counts).to.include({ invalid: 0, new: 2 });
    // payee; date; amount: three columns too, but another layout.
    const other = await importFile(w, "Rent;2026-12-02;-50,00\nBakery;2026-12-05;-7,00\n", { dry_run: true });
    expect(other.mapping_source.source).to.equal("detected");
    expect(other.counts).to.include({ invalid: 0, new: 2 });
  });
});
