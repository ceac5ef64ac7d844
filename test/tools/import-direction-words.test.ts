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

  // The shapes the first version left unasked, on a checking and a card wallet, with and without a running
  // balance: a direction column of one value (money out only, money in only), a transaction type of 6 values,
  // no column at all. Each is read right by the file's own evidence, or asked and refused until answered,
  // and the answer reads it right; none commits a wrong balance unasked.
  type Row = [date: string, text: string, amount: string, type: string];
  const outOnly: Row[] = [["2026-11-03", "Stadtwerke", "-80.00", "Lastschrift / Belastung"], ["2026-11-05", "Telekom", "-39.95", "Lastschrift / Belastung"], ["2026-11-09", "Versicherung", "-12.50", "Lastschrift / Belastung"]];
  const inOnly: Row[] = [["2026-11-03", "Salaris", "2100.00", "Bijschrijving"], ["2026-11-15", "Teruggave", "45.00", "Bijschrijving"], ["2026-11-20", "Rente", "1.20", "Bijschrijving"]];
  const typed: Row[] = [
    ["2026-11-01", "Tesco", "-23.45", "Card payment"],
    ["2026-11-02", "Council Tax", "-150.00", "Direct debit"],
    ["2026-11-03", "Landlord", "-900.00", "Standing order"],
    ["2026-11-04", "Employer Ltd", "2500.00", "Transfer in"],
    ["2026-11-05", "Tesco", "-11.20", "Card payment"],
    ["2026-11-06", "Interest", "0.85", "Interest"],
    ["2026-11-07", "Cash", "-50.00", "ATM"],
  ];
  const csv = (rows: Row[], withType: boolean, opening: number | null) => {
    let balance = opening ?? 0;
    const lines = rows.map((r) => {
      balance = Math.round((balance + Number(r[2])) * 100) / 100;
      return [r[0], r[1], r[2].replace("-", ""), ...(withType ? [r[3]] : []), ...(opening === null ? [] : [balance.toFixed(2)])].join(",");
    });
    return [["Date", "Description", "Amount", ...(withType ? ["Type"] : []), ...(opening === null ? [] : ["Balance"])].join(","), ...lines, ""].join("\n");
  };
  const shapes: [string, Row[], boolean][] = [
    ["money out only", outOnly, true],
    ["money in only", inOnly, true],
    ["a type of 6 values", typed, true],
    ["no column, out only", outOnly, false],
    ["no column, in only", inOnly, false],
    ["no column, mixed", typed, false],
  ];

  for (const type of ["checking", "credit_card"] as const)
    it(`reads each unsigned shape right or asks, on a ${type} wallet, with and without a running balance`, async () => {
      const me = await server.createUser();
      const opening = type === "checking" ? 1000 : -200;
      const asked: string[] = [];
      for (const [name, rows, withType] of shapes)
        for (const running of [false, true]) {
          const statement = csv(rows, withType, running ? opening : null);
          const where = `${name}${running ? " with a balance" : ""}`;
          const truth = ((opening * 100 + rows.reduce((n, r) => n + Math.round(Number(r[2]) * 100), 0)) / 100).toFixed(2);
          const fresh = async () =>
            (await server.call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type, currency: "EUR", opening_balance: opening.toFixed(2), idempotency_key: randomUUID() }, me.token))
              .wallet.id as string;
          const send = (w: string, extra: Record<string, unknown> = {}) => server.call("import_transactions", { wallet_id: w, statement, idempotency_key: randomUUID(), ...extra }, me.token);
          const w = await fresh();
          const preview = await send(w, { dry_run: true });
          const unsure = preview.warnings.find((x: { code: string; message: string }) => x.code === "mapping_unsure" && x.message.includes("sign_out"));
          if (unsure === undefined) {
            // Read by the file's own evidence: right, with nothing to ask.
            await send(w);
            expect(await balance(me.token, w), where).to.equal(truth);
            continue;
          }
          asked.push(where);
          const refused = await server.callError("import_transactions", { wallet_id: w, statement, idempotency_key: randomUUID() }, me.token);
          expect(refused.data, where).to.include({ code: "invalid_params", field: "mapping.sign_out" });
          expect(await balance(me.token, w), where).to.equal(opening.toFixed(2));
          // The person's answer, in the shape the warning names, reads the file right.
          const outs = [...new Set(rows.filter((r) => r[2].startsWith("-")).map((r) => r[3]))];
          const mixed = outs.length > 0 && outs.length < new Set(rows.map((r) => r[3])).size;
          if (!withType && mixed) {
            expect(unsure.message, where).to.include("a file that mixes them cannot be read");
            continue;
          }
          if (withType) expect(unsure.message, where).to.include(`column "Type": ${[...new Set(rows.map((r) => JSON.stringify(r[3])))].join(", ")}`);
          const answer = outs.length === 0 ? { sign_out: "" } : withType ? { sign: "Type", sign_out: outs.join("|") } : { negate: true };
          const answered = await fresh();
          await send(answered, { mapping: answer });
          expect(await balance(me.token, answered), `${where} answered ${JSON.stringify(answer)}`).to.equal(truth);
        }
      // A balance tells the signs on a checking wallet (a card's may count what is owed); money out only reads as
      // purchases on a card.
      expect(asked).to.deep.equal(
        type === "checking"
          ? ["money out only", "money in only", "a type of 6 values", "no column, out only", "no column, in only", "no column, mixed"]
          : ["money out only", "money in only", "money in only with a balance", "a type of 6 values", "a type of 6 values with a balance", "no column, out only", "no column, in only", "no column, in only with a balance", "no column, mixed", "no column, mixed with a balance"],
      );
    });

  // The first row of unsigned amounts beside a running balance: no balance before it tells its sign. A wallet
  // typed right up to the statement is 5,000.00 off the bank after a wrong guess, and the gate took the
  // difference for the wallet's own ("already differed by as much at the start": the opening was derived from
  // the guess). Guessed wrong, the commit must wait; the wallet's own balance before the row tells it.
  it("never commits a wrong guess of the first row's sign when a running balance signs the others", async () => {
    const me = await server.createUser();
    const w = await wallet(me.token);
    const statement = ["Date,Description,Amount,Balance", "2026-11-01,Employer Ltd,2500.00,3500.00", "2026-11-02,Tesco,23.45,3476.55", "2026-11-03,Council Tax,150.00,3326.55", ""].join("\n");
    const send = (extra: Record<string, unknown> = {}) => server.call("import_transactions", { wallet_id: w, statement, idempotency_key: randomUUID(), ...extra }, me.token);
    const preview = await send({ dry_run: true });
    const decision = preview.warnings.find((x: { code: string }) => x.code === "decision_needed");
    expect(decision?.message).to.include("Row 2's amount is unsigned").and.include("read as money out");
    const refused = await server.callError("import_transactions", { wallet_id: w, statement, idempotency_key: randomUUID() }, me.token);
    expect(refused.data).to.include({ code: "invalid_params", field: "expected_balance" });
    expect(await balance(me.token, w)).to.equal("1000.00");
    // Guessed right (as most rows: money out), the wallet agrees and nothing waits: the salary last.
    const right = ["Date,Description,Amount,Balance", "2026-11-01,Tesco,23.45,976.55", "2026-11-02,Council Tax,150.00,826.55", "2026-11-02,Stadtwerke,80.00,746.55", "2026-11-03,Employer Ltd,2500.00,3246.55", ""].join("\n");
    const other = await wallet(me.token);
    await server.call("import_transactions", { wallet_id: other, statement: right, idempotency_key: randomUUID() }, me.token);
    expect(await balance(me.token, other)).to.equal("3246.55");
    // Guessed wrong on a tie (one row out, one in: read as money in), which the gate took for the wallet's own 46.90.
    const tie = ["Date,Description,Amount,Balance", "2026-11-01,Tesco,23.45,976.55", "2026-11-02,Council Tax,150.00,826.55", "2026-11-03,Employer Ltd,2500.00,3326.55", ""].join("\n");
    const third = await wallet(me.token);
    const tied = await server.callError("import_transactions", { wallet_id: third, statement: tie, idempotency_key: randomUUID() }, me.token);
    expect(tied.data).to.include({ code: "invalid_params", field: "expected_balance" });
    expect(await balance(me.token, third)).to.equal("1000.00");
  });
});
