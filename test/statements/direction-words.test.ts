/**
 * Issue 48, "a balance is never silently wrong": an unsigned amount whose direction only a column of words
 * no list knows tells (src/statements/csv-sign.ts, settleDirection). The reader never reads them as money
 * in: it asks which value is money out (unsure "sign_out"), and reads the rows by mapping.sign_out once
 * told. The words are those Dutch banks print for money out and in (Afschrijving, Bijschrijving) and Danish
 * ones (Udbetaling, Indbetaling); no list here knows them. No corpus layout is asked (the detection is not
 * too eager). Engine-free; the tool's side in test/tools/import-direction-words.test.ts.
 */
import { expect } from "chai";
import { refused } from "../helpers/refused.js";
import { parseCsv } from "../../src/statements/csv.js";
import { corpus, read, vocabularyWithout, withheldWords } from "../helpers/leave-one-bank-out.js";

const dutch = [
  "Datum;Omschrijving;Bedrag;Soort",
  "03-11-2026;Albert Heijn 1234;23,45;Afschrijving",
  "05-11-2026;Salaris Werkgever BV;2.100,00;Bijschrijving",
  "07-11-2026;Eneco Energie;80,00;Afschrijving",
  "",
].join("\n");
const danish = [
  "Dato,Tekst,Beløb,Type",
  "2026-11-02,Netto,42.50,Udbetaling",
  "2026-11-10,Løn,28450.00,Indbetaling",
  "2026-11-14,DSB,349.00,Udbetaling",
  "2026-11-20,Overførsel,75.00,Overførsel ud",
  "",
].join("\n");

describe("statements: direction in words no list knows is asked, never read as money in", () => {
  it("asks which value of the column is money out, naming the column and its values", () => {
    const p = parseCsv(dutch);
    expect(p.unsure?.keys).to.include("sign_out");
    expect(p.unsure?.direction).to.deep.equal({ column: "Soort", values: ["Afschrijving", "Bijschrijving"], named: false });
    const d = parseCsv(danish).unsure?.direction;
    expect(d).to.deep.equal({ column: "Type", values: ["Udbetaling", "Indbetaling", "Overførsel ud"], named: false });
  });

  it("asks about three-letter words (PAY, RCV), never about a column of currency codes", () => {
    const pay = ["Date,Reference,Amount,Kind", "11/01/2026,Rent,900.00,PAY", "11/12/2026,Payroll,3150.00,RCV", "11/19/2026,City Power,64.00,PAY", ""].join(
      "\n",
    );
    expect(parseCsv(pay).unsure?.direction).to.deep.equal({ column: "Kind", values: ["PAY", "RCV"], named: false });
    const currencies = ["Date,Reference,Amount,Currency", "11/01/2026,Rent,900.00,EUR", "11/12/2026,Payroll,3150.00,USD", ""].join("\n");
    // Still asked (nothing signs the amounts), but the currency column is not named as telling the direction.
    expect(parseCsv(currencies).unsure?.direction).to.deep.equal({ column: null, values: [], named: false });
  });

  it("reads the rows by mapping.sign_out once told (several values by |), with or without mapping.sign", () => {
    const told = parseCsv(dutch, { sign_column: "Soort", sign_out: "Afschrijving" });
    expect(told.unsure?.keys ?? []).not.to.include("sign_out");
    expect(told.rows.map((r) => r.amount)).to.deep.equal(["-23.45", "2100.00", "-80.00"]);
    expect(parseCsv(dutch, { sign_out: "afschrijving" }).rows.map((r) => r.amount)).to.deep.equal(["-23.45", "2100.00", "-80.00"]);
    const both = parseCsv(danish, { sign_column: "Type", sign_out: "Udbetaling|Overførsel ud" });
    expect(both.rows.map((r) => r.amount)).to.deep.equal(["-42.50", "28450.00", "-349.00", "-75.00"]);
  });

  it("asks in a card's export too, where purchases would otherwise be read positive, unless the person sent negate", () => {
    const card = [
      "Date,Merchant,Amount,Kind",
      "2026-11-03,Grocer,23.45,Purchase",
      "2026-11-10,Thank you,500.00,Pymt",
      "2026-11-14,Cafe,4.20,Purchase",
      "",
    ].join("\n");
    expect(parseCsv(card, {}, { card: true }).unsure?.direction).to.deep.equal({ column: "Kind", values: ["Purchase", "Pymt"], named: false });
    expect(parseCsv(card, { purchases_positive: true }, { card: true }).unsure?.keys ?? []).not.to.include("sign_out");
    const told = parseCsv(card, { sign_column: "Kind", sign_out: "Purchase" }, { card: true });
    expect(told.rows.map((r) => r.amount)).to.deep.equal(["-23.45", "500.00", "-4.20"]);
  });

  it('reads every row as money in only when the person says so (sign_out "")', () => {
    const allIn = parseCsv(dutch, { sign_out: "" });
    expect(allIn.unsure?.keys ?? []).not.to.include("sign_out");
    expect(allIn.rows.map((r) => r.amount)).to.deep.equal(["23.45", "2100.00", "80.00"]);
  });

  it("asks for sign_out where the person names a sign column of unknown words, and never reads them in", () => {
    const p = parseCsv(dutch, { sign_column: "Soort" });
    expect(p.unsure?.direction).to.deep.equal({ column: "Soort", values: ["Afschrijving", "Bijschrijving"], named: true });
    expect(p.rows.every((r) => r.amount === null && r.error?.field === "amount")).to.equal(true);
  });

  it("refuses a sign_out that no row holds, naming the values", () => {
    const err = refused(() => parseCsv(dutch, { sign_column: "Soort", sign_out: "Debit" }));
    expect(err.message).to.equal(
      'mapping.sign_out: no row of "Soort" holds "Debit"; its values are "Afschrijving", "Bijschrijving". Send the one that means money out.',
    );
  });

  it("does not ask where the words are known, the amounts are signed, or a running balance settles the signs", () => {
    const known = parseCsv(dutch.replace(/Afschrijving/g, "Af").replace(/Bijschrijving/g, "Bij"));
    expect(known.unsure?.keys ?? []).not.to.include("sign_out");
    expect(known.rows.map((r) => r.amount)).to.deep.equal(["-23.45", "2100.00", "-80.00"]);
    const signed = parseCsv(dutch.replace(";23,45;", ";-23,45;").replace(";80,00;", ";-80,00;"));
    expect(signed.unsure?.keys ?? []).not.to.include("sign_out");
    const balance = parseCsv(
      ["Datum;Omschrijving;Bedrag;Soort;Saldo", "03-11-2026;AH;23,45;Afschrijving;976,55", "05-11-2026;Salaris;2.100,00;Bijschrijving;3.076,55", ""].join("\n"),
    );
    expect(balance.unsure?.keys ?? []).not.to.include("sign_out");
  });

  it("asks about no layout of the corpus", () => {
    const asked = corpus.filter((l) => read(l).unsure?.keys.includes("sign_out") === true).map((l) => l.layout);
    expect(corpus.length).to.be.greaterThan(40);
    expect(asked).to.deep.equal([]);
    // Nor with the words only its bank uses withheld (the leave-one-bank-out reading).
    const withheld = withheldWords();
    const askedWithout = corpus.filter((l) => read(l, vocabularyWithout(withheld.get(l.layout) ?? [])).unsure?.keys.includes("sign_out") === true);
    expect(askedWithout.map((l) => l.layout)).to.deep.equal([]);
  });
});
