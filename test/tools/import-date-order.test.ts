/**
 * An answered date order that spreads a month's statement over months waits for the person (issue 48, third
 * probe). A day-first statement whose days are all 12 or below is asked (mapping_unsure); answered month-first,
 * its November rows were booked from February to September, the person's hand-typed twins of two of them
 * were no longer found beside them and were counted twice, and with no balance on those months nothing
 * stopped the commit. Now the commit waits for expected_balance, naming both readings' dates.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const statement = [
  "Fecha operación;Concepto;Importe;Saldo",
  "09/11/2026;Comision Mantenimiento;-3,00;2.176,20",
  "07/11/2026;Recibo Iberdrola Clientes;-38,50;2.179,20",
  "05/11/2026;Nomina Acme Iberia Sl;1.950,00;2.217,70",
  "03/11/2026;Transferencia Lucia Garcia Alquiler;-780,00;267,70",
  "02/11/2026;Compra Mercadona Valencia;-52,30;1.047,70",
  "",
].join("\n");

describe(`import_transactions: a date order answered against the statement's own dates (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  const wallet = async (token: string) =>
    (await server.call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type: "checking", currency: "EUR", opening_balance: "1100.00", idempotency_key: randomUUID() }, token))
      .wallet.id as string;
  const importFile = (token: string, w: string, extra: Record<string, unknown>) =>
    server.call("import_transactions", { wallet_id: w, statement, idempotency_key: randomUUID(), ...extra }, token);

  it("reads the rows within November and asks; answered month-first, the commit waits for the person, naming both readings", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const preview = await importFile(me.token, w, { dry_run: true });
    expect(preview.mapping.date_order).to.equal("day_first");
    expect(preview.warnings.map((x: { code: string }) => x.code)).to.include("mapping_unsure").and.not.to.include("decision_needed");

    const flipped = await importFile(me.token, w, { dry_run: true, mapping: { date_order: "month_first" } });
    const decision = flipped.warnings.find((x: { code: string }) => x.code === "decision_needed");
    expect(decision?.message).to.include("Read month-first, the rows run from 2026-02-11 to 2026-09-11; read day-first, they fall within 2026-11-02 to 2026-11-09");
    const refused = await server.callError("import_transactions", { wallet_id: w, statement, mapping: { date_order: "month_first" }, idempotency_key: randomUUID() }, me.token);
    expect(refused.data).to.include({ field: "expected_balance" });
    expect((await server.call("list_transactions", { wallet_id: w, limit: 50 }, me.token)).transactions).to.have.length(0);
    // The person confirms: their statement is month-first after all.
    const offer = /expected_balance: "(-?[\d.]+)"/.exec(refused.message)![1]!;
    const committed = await importFile(me.token, w, { mapping: { date_order: "month_first" }, expected_balance: offer });
    expect(committed.counts.created).to.equal(5);
  });

  it("commits the order that keeps the rows within the month without waiting", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const committed = await importFile(me.token, w, { mapping: { date_order: "day_first" } });
    expect(committed.counts.created).to.equal(5);
    expect(committed.warnings.map((x: { code: string }) => x.code)).not.to.include("decision_needed");
  });
});
