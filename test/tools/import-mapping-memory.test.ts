/**
 * Issue 37, item 3: a CSV mapping remembered per wallet. The commit of an import saves the mapping it read
 * with under the wallet and the file's layout (header and preamble keys); the next statement of that
 * layout in that wallet is read with it without asking, the preview says so, a mapping the call sends
 * overrides it and on commit replaces it, undoing the import restores the one before (or removes it), and
 * it goes with export, import, wallet deletion and account deletion. Another person's wallet never sees it.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { exportAccount } from "../../src/portability/export.js";
import { importAccount } from "../../src/portability/import.js";
import { countAccountRows, deleteAccount } from "../../src/account/delete.js";

// Days of 12 or below only, written with slashes (dotted dates are day-first by convention): nothing in the file tells day-first from month-first (mapping_unsure).
const october = "Kontostand vom 31.10.2026:;100,00 €\nDatum;Empfänger;Betrag\n01/10/2026;Rent;-50,00\n02/10/2026;Grocer;-20,00\n";
// The same layout, a month later, another balance in the preamble: the same fingerprint.
const november = "Kontostand vom 30.11.2026:;30,00 €\nDatum;Empfänger;Betrag\n01/11/2026;Rent;-50,00\n03/11/2026;Cafe;-3,20\n";

describe(`import_transactions remembers a CSV mapping per wallet (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  const wallet = async (token: string, name = `W ${randomUUID().slice(0, 8)}`) =>
    (await server.call("create_wallet", { name, type: "checking", currency: "EUR", idempotency_key: randomUUID() }, token)).wallet.id as string;
  const importFile = (token: string, walletId: string, statement: string, extra: Record<string, unknown> = {}) =>
    server.call("import_transactions", { wallet_id: walletId, statement, idempotency_key: randomUUID(), ...extra }, token);
  const stored = (userId: string) => server.db("import_mappings").where({ user_id: userId }).select("wallet_id", "fingerprint", "mapping");

  it("reads a second file of the same layout with the mapping the first commit confirmed, without asking", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const first = await importFile(me.token, w, october, { dry_run: true });
    expect(first.mapping_source).to.deep.equal({ source: "detected", saved_at: null });
    expect(first.warnings.map((x: any) => x.code)).to.include("mapping_unsure");
    // The person says the dates are month-first (a US-style export with German headers, say) and commits.
    const committed = await importFile(me.token, w, october, { mapping: { date_order: "month_first" } });
    expect(committed.mapping_source).to.deep.equal({ source: "given", saved_at: null });
    expect(committed.rows.map((r: any) => r.date)).to.deep.equal(["2026-01-10", "2026-02-10"]);

    const next = await importFile(me.token, w, november, { dry_run: true });
    expect(next.mapping_source.source).to.equal("remembered");
    expect(next.mapping_source.saved_at).to.match(/^\d{4}-\d{2}-\d{2}T/);
    expect(next.mapping).to.include({ date_order: "month_first", date: "Datum", amount: "Betrag" });
    expect(next.warnings.map((x: any) => x.code)).to.not.include("mapping_unsure");
    expect(next.rows.map((r: any) => r.date).sort()).to.deep.equal(["2026-01-11", "2026-03-11"]);

    // A file of another layout in the same wallet is not read with it.
    const other = await importFile(me.token, w, "Date;Payee;Amount\n01.11.2026;Rent;-50,00\n", { dry_run: true });
    expect(other.mapping_source).to.deep.equal({ source: "detected", saved_at: null });
    // Nor is the same layout in another wallet.
    const elsewhere = await importFile(me.token, await wallet(me.token), november, { dry_run: true });
    expect(elsewhere.mapping_source).to.deep.equal({ source: "detected", saved_at: null });
    expect(elsewhere.warnings.map((x: any) => x.code)).to.include("mapping_unsure");
  });

  it("keeps a correction: a mapping sent overrides the remembered one and its commit replaces it", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    await importFile(me.token, w, october, { mapping: { date_order: "month_first" } });
    const corrected = await importFile(me.token, w, november, { dry_run: true, mapping: { date_order: "day_first" } });
    expect(corrected.mapping_source.source).to.equal("given");
    expect(corrected.rows.map((r: any) => r.date).sort()).to.deep.equal(["2026-11-01", "2026-11-03"]);
    // A preview saves nothing.
    expect(JSON.parse((await stored(me.id))[0].mapping)).to.include({ date_order: "month_first" });
    await importFile(me.token, w, november, { mapping: { date_order: "day_first" } });
    const rows = await stored(me.id);
    expect(rows).to.have.length(1);
    expect(JSON.parse(rows[0].mapping)).to.include({ date_order: "day_first", date_column: "Datum" });
    const again = await importFile(me.token, w, november, { dry_run: true });
    expect(again.mapping_source.source).to.equal("remembered");
    expect(again.counts).to.include({ duplicate: 2, new: 0 });
  });

  it("undoing the import that saved or changed a mapping restores the one before, or removes it", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const first = await importFile(me.token, w, october, { mapping: { date_order: "month_first" } });
    const second = await importFile(me.token, w, november, { mapping: { date_order: "day_first" } });
    expect(JSON.parse((await stored(me.id))[0].mapping).date_order).to.equal("day_first");
    await server.call("undo_change", { audit_id: second.audit_id, idempotency_key: randomUUID() }, me.token);
    expect(JSON.parse((await stored(me.id))[0].mapping).date_order).to.equal("month_first");
    await server.call("undo_change", { audit_id: first.audit_id, idempotency_key: randomUUID() }, me.token);
    expect(await stored(me.id)).to.deep.equal([]);
    const fresh = await importFile(me.token, w, november, { dry_run: true });
    expect(fresh.mapping_source.source).to.equal("detected");
  });

  it("undoing an earlier import keeps the mapping a later import saved, and is not refused for it", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const first = await importFile(me.token, w, october, { mapping: { date_order: "month_first" } });
    await importFile(me.token, w, november, { mapping: { date_order: "day_first" } });
    const undone = await server.call("undo_change", { audit_id: first.audit_id, idempotency_key: randomUUID() }, me.token);
    expect(undone).to.be.an("object");
    // October's rows are gone, November's and the mapping November's import saved stay.
    expect(Number((await server.db("transactions").where({ user_id: me.id }).count({ n: "*" }).first())!.n)).to.equal(2);
    expect(JSON.parse((await stored(me.id))[0].mapping).date_order).to.equal("day_first");
  });

  it("finds the header again in each file: a blank preamble line more or less reads the same", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const withBlank = "Kontonummer:;DE123;\n\nBuchungstag;Empfänger;Betrag\n24.10.2026;Rent;-50,00\n25.10.2026;Grocer;-20,00\n";
    const withoutBlank = "Kontonummer:;DE123;\nBuchungstag;Empfänger;Betrag\n24.11.2026;Rent;-50,00\n25.11.2026;Cafe;-3,20\n";
    await importFile(me.token, w, withBlank);
    expect(JSON.parse((await stored(me.id))[0].mapping)).to.not.have.any.keys("header_row", "delimiter");
    const next = await importFile(me.token, w, withoutBlank, { dry_run: true });
    expect(next.mapping_source.source).to.equal("remembered");
    expect(next.counts).to.include({ rows: 2, invalid: 0 });
    expect(next.rows.map((r: any) => r.date).sort()).to.deep.equal(["2026-11-24", "2026-11-25"]);
  });

  it("remembers only what the account's export can restore: a column name over 500 characters is not remembered", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const long = `Verwendungszweck ${"x".repeat(600)}`;
    await importFile(me.token, w, `Datum;Empfänger;${long};Betrag\n24.11.2026;Rent;Miete;-50,00\n`, { mapping: { description: long } });
    expect(await stored(me.id)).to.deep.equal([]);
  });

  it("goes with the account's export and import, with the wallet's deletion and with the account's", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token, "Giro");
    const committed = await importFile(me.token, w, october, { mapping: { date_order: "month_first" } });
    const [saved] = await stored(me.id);

    const data = await exportAccount(server.db, me.id);
    expect(data.import_mappings).to.have.length(1);
    expect(data.import_mappings).to.deep.equal([
      { wallet_id: w, fingerprint: saved.fingerprint, mapping: saved.mapping, created_at: (data.import_mappings as any)[0].created_at, updated_at: (data.import_mappings as any)[0].updated_at },
    ]);
    const copy = await server.createUser();
    const { counts, ids } = await importAccount(server.db, copy.id, JSON.parse(JSON.stringify(data)));
    expect(counts.import_mappings).to.equal(1);
    const copied = await importFile(copy.token, ids.get(w)!, november, { dry_run: true });
    expect(copied.mapping_source.source).to.equal("remembered");
    expect(copied.mapping.date_order).to.equal("month_first");

    // A mapping that is not one is named by section, row and column.
    const bad = JSON.parse(JSON.stringify(data));
    bad.import_mappings[0].mapping = JSON.stringify({ date_column: "Datum", sql: "drop" });
    const refused = await importAccount(server.db, (await server.createUser()).id, bad).catch((e: Error) => e);
    expect(String(refused)).to.include("import_mappings[0].mapping: expected JSON text of a CSV mapping");

    // Wallet deletion: its transactions go first (the undo of the import), then the wallet with its mapping.
    await server.call("undo_change", { audit_id: committed.audit_id, idempotency_key: randomUUID() }, me.token);
    await importFile(me.token, w, october, { mapping: { date_order: "month_first" }, import_rows: [] });
    const txns = await server.call("list_transactions", { wallet_id: w }, me.token);
    for (const t of txns.transactions) await server.call("delete_transaction", { transaction_id: t.id, idempotency_key: randomUUID() }, me.token);
    expect(await stored(me.id)).to.have.length(1);
    const deleted = await server.call("delete_wallet", { wallet_id: w, idempotency_key: randomUUID() }, me.token);
    expect(await stored(me.id)).to.deep.equal([]);
    // And its undo brings the wallet back with its mapping.
    await server.call("undo_change", { audit_id: deleted.audit_id, idempotency_key: randomUUID() }, me.token);
    expect(await stored(me.id)).to.have.length(1);

    // Account deletion counts and deletes it.
    expect((await countAccountRows(server.db, copy.id)).find((c) => c.table === "import_mappings")?.rows).to.equal(1);
    await deleteAccount(server.db, copy.id);
    expect(await stored(copy.id)).to.deep.equal([]);
  });

  it("another person's wallet never sees it", async () => {
    const me = await server.createUser();
    const other = await server.createUser();
    const mine = await wallet(me.token);
    await importFile(me.token, mine, october, { mapping: { date_order: "month_first" } });
    const theirs = await wallet(other.token);
    const preview = await importFile(other.token, theirs, november, { dry_run: true });
    expect(preview.mapping_source).to.deep.equal({ source: "detected", saved_at: null });
    expect(preview.mapping.date_order).to.equal("day_first");
    // Nor can they read with it by naming my wallet.
    const refused = await server.callError("import_transactions", { wallet_id: mine, statement: november, dry_run: true, idempotency_key: randomUUID() }, other.token);
    expect(refused.data).to.include({ code: "not_found", field: "wallet_id" });
  });
});
