/**
 * What the corpus does not show on its own: MT940's reversals and year turn and several statements in
 * one file; CSV sign marks, card exports with positive purchases, and a currency in an amount cell.
 */
import { expect } from "chai";
import { parseStatement } from "../../src/statements/parse.js";

const pick = (rows: any[], ...keys: string[]) => rows.map((r) => keys.map((k) => r[k]));

describe("MT940 and CSV signs", () => {
  it("reads MT940 reversals, a booking date across the year turn and two statements in one file", () => {
    const text = [
      ":20:STARTUMSE",
      ":25:30050110/0012345678",
      ":28C:00012/001",
      ":60F:C261230EUR100,00",
      ":61:2612310102DR10,00NDDTNONREF//B1",
      ":86:105?00LASTSCHRIFT?20SVWZ+Januar?32Stadtwerke",
      ":61:2612311231RC5,00NMSCNONREF//B2",
      ":86:Storno einer Gutschrift",
      ":62F:C261231EUR85,00",
      "-",
      ":20:STARTUMSE",
      ":25:30050110/0012345678",
      ":28C:00013/001",
      ":60F:C261231EUR85,00",
      ":61:270105C7,50NTRFNONREF",
      ":86:166?00GUTSCHRIFT?20SVWZ+Erstattung?32Muster AG",
      ":62F:C270105EUR92,50",
      "-",
    ].join("\r\n");
    const p = parseStatement(text);
    expect(p.format).to.equal("mt940");
    expect(pick(p.rows, "date", "amount", "payee", "description", "bankId")).to.deep.equal([
      ["2027-01-02", "-10.00", "Stadtwerke", "Januar", "B1"],
      ["2026-12-31", "-5.00", "Storno einer Gutschrift", null, "B2"],
      ["2027-01-05", "7.50", "Muster AG", "Erstattung", null],
    ]);
    expect(p.opening).to.deep.equal({ date: "2026-12-30", amount: "100.00" });
    expect(p.closing).to.deep.equal({ date: "2027-01-05", amount: "92.50" });
  });

  it("names an MT940 entry it cannot read by row and field", () => {
    const p = parseStatement(":20:X\n:25:DE02120300000000202051\n:60F:C261101EUR1,00\n:61:2611XXC1,00NTRF\n:62F:C261101EUR1,00\n-");
    expect(p.rows[0]!.error).to.deep.equal({ field: "date", reason: '"2611XX" is not a YYMMDD value date' });
  });

  it("signs an unsigned amount by an S/H or Af/Bij column, found by its content", () => {
    const text = "Buchungstag;Empfänger;Umsatz;\n03.11.2026;Hausverwaltung Müller;900,00;S\n12.11.2026;Acme GmbH;3.150,00;H\n";
    const p = parseStatement(text);
    expect(p.mapping!.sign_column).to.equal("#4");
    expect(pick(p.rows, "amount")).to.deep.equal([["-900.00"], ["3150.00"]]);
  });

  it("negates a card export whose purchases are positive only in a card wallet, and the person can say otherwise", () => {
    const text = "Date,Description,Amount\n11/18/2026,STARBUCKS,3.20\n11/10/2026,AUTOPAY PAYMENT - THANK YOU,-500.00\n11/06/2026,NETFLIX.COM,12.99\n";
    const card = parseStatement(text, undefined, {}, { card: true });
    expect(card.mapping!.purchases_positive).to.equal(true);
    expect(pick(card.rows, "amount")).to.deep.equal([["-3.20"], ["500.00"], ["-12.99"]]);
    expect(pick(parseStatement(text).rows, "amount")).to.deep.equal([["3.20"], ["-500.00"], ["12.99"]]);
    expect(pick(parseStatement(text, undefined, { purchases_positive: false }, { card: true }).rows, "amount")).to.deep.equal([
      ["3.20"],
      ["-500.00"],
      ["12.99"],
    ]);
  });

  it("reads a currency in an amount cell like a currency column (issue 41)", () => {
    const p = parseStatement(
      "Date,Payee,Amount\n2026-11-24,Shop,USD 5.00\n2026-11-24,Cafe,5.00 €\n2026-11-24,Pub,£4.50\n2026-11-24,Diner,$7.00\n2026-11-24,Kiosk,2.00\n",
    );
    expect(pick(p.rows, "amount", "currency")).to.deep.equal([
      ["5.00", "USD"],
      ["5.00", "EUR"],
      ["4.50", "GBP"],
      ["7.00", "$"],
      ["2.00", null],
    ]);
  });

  it("reads the counterparty from the payer column for money in and the payee column for money out", () => {
    const text = [
      '"Kontostand vom 24.11.2026:";"5.911,54 €"',
      '"Buchungsdatum";"Zahlungspflichtige*r";"Zahlungsempfänger*in";"Verwendungszweck";"Betrag (€)"',
      '"12.11.26";"Acme GmbH";"Erika Mustermann";"Gehalt November 2026";"3.150,00"',
      '"03.11.26";"Erika Mustermann";"Hausverwaltung Müller";"Miete November 2026 Whg 3 links";"-900,00"',
    ].join("\n");
    const p = parseStatement(text);
    expect(pick(p.rows, "payee", "description")).to.deep.equal([
      ["Acme GmbH", "Gehalt November 2026"],
      ["Hausverwaltung Müller", "Miete November 2026 Whg 3 links"],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-24", amount: "5911.54" });
  });
});
