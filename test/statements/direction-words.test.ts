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

  // The shapes the first version left unasked: a column of one value (a filtered view's export), a transaction
  // type of more than 4 values, no column at all; each read all in before (a checking wallet's balance wrong).
  const type = [
    "Date,Description,Amount,Type",
    "2026-11-01,Tesco,23.45,Card payment",
    "2026-11-02,Council Tax,150.00,Direct debit",
    "2026-11-03,Landlord,900.00,Standing order",
    "2026-11-04,Employer Ltd,2500.00,Transfer in",
    "2026-11-05,Tesco,11.20,Card payment",
    "2026-11-06,Interest,0.85,Interest",
    "2026-11-07,Cash,50.00,ATM",
    "2026-11-08,Spotify,9.99,Direct debit",
    "",
  ].join("\n");

  it("asks about a column of one value, naming it (money out only or in only)", () => {
    const only = [
      "Buchungstag;Buchungstext;Betrag;Vorgang",
      "03.11.2026;Stadtwerke;80,00;Lastschrift / Belastung",
      "05.11.2026;Telekom;39,95;Lastschrift / Belastung",
      "",
    ].join("\n");
    expect(parseCsv(only).unsure?.direction).to.deep.equal({ column: "Vorgang", values: ["Lastschrift / Belastung"], named: false });
    expect(parseCsv(only, { sign_out: "Lastschrift / Belastung" }).rows.map((r) => r.amount)).to.deep.equal(["-80.00", "-39.95"]);
    expect(parseCsv(only, { sign_out: "" }).rows.map((r) => r.amount)).to.deep.equal(["80.00", "39.95"]);
  });

  it("asks about a transaction type of more than 4 values, and reads it by sign_out A|B|C", () => {
    expect(parseCsv(type).unsure?.direction).to.deep.equal({
      column: "Type",
      values: ["Card payment", "Direct debit", "Standing order", "Transfer in", "Interest", "ATM"],
      named: false,
    });
    const told = parseCsv(type, { sign_out: "Card payment|Direct debit|Standing order|ATM" });
    expect(told.unsure?.keys ?? []).not.to.include("sign_out");
    expect(told.rows.map((r) => r.amount)).to.deep.equal(["-23.45", "-150.00", "-900.00", "2500.00", "-11.20", "0.85", "-50.00", "-9.99"]);
  });

  it("names a few values of a wide type column and counts the rest", () => {
    const kinds = ["DEB", "DD", "SO", "FPO", "FPI", "BGC", "CPT", "TFR", "CHG", "INT"];
    const lines = [...kinds, ...kinds].map((k, i) => `2026-11-${String(i + 1).padStart(2, "0")},Row ${i},${i + 1}.00,${k}`);
    const d = parseCsv(["Date,Description,Amount,Code", ...lines, ""].join("\n")).unsure?.direction;
    expect(d).to.deep.equal({ column: "Code", values: kinds.slice(0, 8), more: 2, named: false });
  });

  it('asks with no column where nothing in the file may tell, and negate or sign_out "" answers', () => {
    const bare = type.replace(/,[^,\n]+$/gm, "").replace("Amount\n", "Amount\n");
    expect(bare.split("\n")[0]).to.equal("Date,Description,Amount");
    expect(parseCsv(bare).unsure?.direction).to.deep.equal({ column: null, values: [], named: false });
    expect(parseCsv(bare, { purchases_positive: true }).unsure?.keys ?? []).not.to.include("sign_out");
    expect(parseCsv(bare, { sign_out: "" }).unsure?.keys ?? []).not.to.include("sign_out");
  });

  it('reads every row in on a card where the person says so (sign_out ""), not as purchases', () => {
    const payments = [
      "Date,Merchant,Amount,Kind",
      "2026-11-03,Payment thank you,500.00,Bijschrijving",
      "2026-11-20,Payment thank you,45.00,Bijschrijving",
      "",
    ].join("\n");
    expect(parseCsv(payments, {}, { card: true }).unsure?.keys).to.include("sign_out");
    expect(parseCsv(payments, { sign_out: "" }, { card: true }).rows.map((r) => r.amount)).to.deep.equal(["500.00", "45.00"]);
  });

  it("signs unsigned amounts by a running balance, oldest first or newest first, and asks where it cannot", () => {
    let balance = 1000;
    const signed = ["-23.45", "-150.00", "-900.00", "2500.00", "-11.20", "0.85", "-50.00", "-9.99"];
    const withBalance = type
      .split("\n")
      .map((line, i) =>
        i === 0 ? `${line},Balance` : line === "" ? line : `${line},${(balance = Math.round((balance + Number(signed[i - 1])) * 100) / 100).toFixed(2)}`,
      )
      .join("\n");
    const read = parseCsv(withBalance);
    expect(read.unsure?.keys ?? []).not.to.include("sign_out");
    expect(read.rows.map((r) => r.amount)).to.deep.equal(signed);
    expect(read.balanceIssues).to.equal(undefined);
    const [head, ...body] = withBalance.trimEnd().split("\n");
    const newestFirst = parseCsv([head, ...body.reverse(), ""].join("\n"));
    expect(newestFirst.rows.map((r) => r.amount)).to.deep.equal([...signed].reverse());
    // The first row has no balance before it: read as the other rows of its type (Card payment: out).
    expect(read.opening?.amount).to.equal("1000.00");
    // A balance that does not follow the amounts either way (a row missing) signs nothing: asked.
    const gap = withBalance.replace(/^2026-11-05.*\n/m, "");
    expect(parseCsv(gap).unsure?.direction?.column).to.equal("Type");
    // A card's balance may count what is owed: asked there, where it reverses a row as read.
    expect(parseCsv(withBalance, {}, { card: true }).unsure?.keys).to.include("sign_out");
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
