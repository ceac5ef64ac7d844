/**
 * Issue 48, "a balance is never silently wrong", through the tool: a CSV whose amounts are unsigned and
 * whose direction only a column of words no list knows tells (Dutch banks' Afschrijving/Bijschrijving).
 * The preview asks which value is money out (mapping_unsure), the commit waits, the answer (mapping.sign
 * and mapping.sign_out) imports the right balance and is remembered for the wallet, so the next statement
 * of the layout is read without asking and a re-import creates nothing. "Every row is money in"
 * (sign_out "") is this file's answer only: the next file is asked again.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const statement = [
  "Datum;Omschrijving;Bedrag;Soort",
  "13-11-2026;Albert Heijn 1234;23,45;Afschrijving",
  "15-11-2026;Salaris Werkgever BV;2.100,00;Bijschrijving",
  "17-11-2026;Eneco Energie;80,00;Afschrijving",
  "",
].join("\n");

describe(`import_transactions asks which word is money out where no list knows them (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  const wallet = async (token: string) =>
    (await server.call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type: "checking", currency: "EUR", opening_balance: "1000.00", idempotency_key: randomUUID() }, token))
      .wallet.id as string;
  const importFile = (token: string, walletId: string, extra: Record<string, unknown> = {}) =>
    server.call("import_transactions", { wallet_id: walletId, statement, idempotency_key: randomUUID(), ...extra }, token);
  const balance = async (token: string, walletId: string) =>
    (await server.call("get_wallet_balance", { wallet_id: walletId, as_of: "2026-12-31" }, token)).wallets[0].balance.value as string;

  it("warns in the preview, refuses the commit, imports the right balance once answered, and remembers the answer", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const preview = await importFile(me.token, w, { dry_run: true });
    const unsure = preview.warnings.filter((x: { code: string }) => x.code === "mapping_unsure");
    expect(unsure).to.have.length(1);
    expect(unsure[0].message).to.include('column "Soort": "Afschrijving", "Bijschrijving"');
    expect(unsure[0].message).to.include('send mapping.sign "Soort" and mapping.sign_out');
    const refused = await server.callError("import_transactions", { wallet_id: w, statement, idempotency_key: randomUUID() }, me.token);
    expect(refused.data).to.include({ code: "invalid_params", field: "mapping.sign_out" });
    expect(await balance(me.token, w)).to.equal("1000.00");
    const mapping = { sign: "Soort", sign_out: "Afschrijving" };
    const told = await importFile(me.token, w, { dry_run: true, mapping });
    expect(told.warnings).to.deep.equal([]);
    expect(told.mapping).to.include(mapping);
    const committed = await importFile(me.token, w, { mapping });
    expect(committed.counts.created).to.equal(3);
    expect(await balance(me.token, w)).to.equal("2996.55");
    // The next statement of the layout, sent without a mapping: read with the remembered answer, nothing new.
    const again = await importFile(me.token, w);
    expect(again.warnings).to.deep.equal([]);
    expect(again.counts).to.include({ created: 0, duplicate: 3 });
    expect(await balance(me.token, w)).to.equal("2996.55");
  });

  it('imports every row as money in when the person says so (sign_out ""), and asks again for the next file', async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const committed = await importFile(me.token, w, { mapping: { sign_out: "" } });
    expect(committed.counts.created).to.equal(3);
    expect(await balance(me.token, w)).to.equal("3203.45");
    const next = await importFile(me.token, w, { dry_run: true });
    expect(next.warnings.map((x: { code: string }) => x.code)).to.include("mapping_unsure");
  });
});
