/**
 * The statement parsers on their own (src/statements): each format's fixture (written from its public
 * specification and real bank export layouts, no real person's data), and the CSV layouts banks vary in.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { refused } from "../helpers/refused.js";
import { parseDate } from "../../src/statements/dates.js";
import { parseDecimal } from "../../src/statements/numbers.js";
import { detectFormat, parseStatement } from "../../src/statements/parse.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/statements/${name}`, import.meta.url), "utf8");
const pick = (rows: any[], ...keys: string[]) => rows.map((r) => keys.map((k) => r[k]));

describe("statement parsers", () => {
  it("detects each format from its markers", () => {
    expect(detectFormat(fixture("bank-1x.ofx"))).to.equal("ofx");
    expect(detectFormat(fixture("card-2x.qfx"))).to.equal("ofx");
    expect(detectFormat(fixture("statement.camt053.xml"))).to.equal("camt");
    expect(detectFormat(fixture("report.camt052.xml"))).to.equal("camt");
    expect(detectFormat(fixture("bank.qif"))).to.equal("qif");
    expect(detectFormat(fixture("girokonto.csv"))).to.equal("csv");
  });

  it("reads a German Girokonto CSV: preamble, semicolons, decimal commas, day-first dates, a line break in quotes", () => {
    const s = parseStatement(fixture("girokonto.csv"));
    expect(s.mapping).to.include({ delimiter: ";", header_row: 7, decimal: ",", date_order: "day_first", amount_column: "Betrag (EUR)" });
    expect(pick(s.rows, "row", "date", "amount", "payee")).to.deep.equal([
      [8, "2026-11-24", "-23.45", "REWE Markt GmbH"],
      [9, "2026-11-24", "-3.20", "Bäckerei Schmidt"],
      [10, "2026-11-24", "-3.20", "Bäckerei Schmidt"],
      [11, "2026-11-21", "3150.00", "Muster AG"],
      [12, "2026-11-18", "-1050.00", "Hausverwaltung Nord"],
      [13, "2026-11-03", "-64.00", "Stadtwerke"],
    ]);
    expect(s.rows[5]!.description).to.equal("Strom Abschlag 11/2026\nVertragskonto 4711");
  });

  it("reads a US checking CSV (month-first, thousands commas, a trailing delimiter, a balance column) and a UK one with paid out / paid in", () => {
    const us = parseStatement(fixture("checking-us.csv"));
    expect(us.mapping).to.include({ date_order: "month_first", decimal: ".", balance_column: "Balance" });
    expect(pick(us.rows, "date", "amount")).to.deep.include.members([["2026-11-15", "2500.00"]]);
    expect(us.closing).to.deep.equal({ date: "2026-11-23", amount: "1957.25" });
    const uk = parseStatement(fixture("current-account-uk.csv"));
    expect(uk.mapping).to.include({ date_order: "day_first", debit_column: "Paid Out", credit_column: "Paid In" });
    expect(pick(uk.rows, "date", "amount", "payee")).to.deep.equal([
      ["2026-11-24", "-12.40", "TESCO STORES 3297"],
      ["2026-11-22", "450.00", "J SMITH RENT SHARE"],
      ["2026-11-13", "-1066.00", "OCTOPUS ENERGY"],
    ]);
  });

  it("reads a CSV with a BOM, tabs and ISO dates, and one without a header", () => {
    const tabbed = parseStatement("\uFEFFDate\tPayee\tAmount\n2026-11-02\tCafé\t-3.50\n2026-11-03\tShop\t1,234.00\n");
    expect(pick(tabbed.rows, "date", "amount", "payee")).to.deep.equal([
      ["2026-11-02", "-3.50", "Café"],
      ["2026-11-03", "1234.00", "Shop"],
    ]);
    const bare = parseStatement("24.11.2026;REWE;-23,45\n25.11.2026;Lidl;-5,00\n");
    expect(bare.mapping).to.include({ header_row: 0, date_column: "#1", amount_column: "#3", payee_column: "#2" });
    expect(pick(bare.rows, "date", "amount", "payee")).to.deep.equal([
      ["2026-11-24", "-23.45", "REWE"],
      ["2026-11-25", "-5.00", "Lidl"],
    ]);
  });

  it("reads OFX 1.x SGML and OFX 2.x XML: FITID, signed TRNAMT, DTPOSTED, LEDGERBAL, entities", () => {
    const sgml = parseStatement(fixture("bank-1x.ofx"));
    expect(sgml).to.deep.include({ currency: "USD", closing: { date: "2026-11-24", amount: "2447.26" } });
    expect(pick(sgml.rows, "bankId", "date", "amount", "payee", "description")).to.deep.equal([
      ["202611230001", "2026-11-23", "-42.75", "TRADER JOE'S #552", "POS PURCHASE"],
      ["202611150001", "2026-11-15", "2500.00", "ACME CORP PAYROLL", null],
      ["202611100001", "2026-11-10", "-9.99", "SPOTIFY & CO", "Monthly plan"],
    ]);
    const xml = parseStatement(fixture("card-2x.qfx"));
    expect(xml.closing).to.deep.equal({ date: "2026-11-24", amount: "-476.18" });
    expect(pick(xml.rows, "bankId", "amount")).to.deep.equal([
      ["2026112224692166320100089", "-64.18"],
      ["2026111924692166320100071", "-12.00"],
      ["2026110524692166320100012", "300.00"],
    ]);
  });

  it("reads CAMT.053 and CAMT.052: sign from CdtDbtInd, the other party as payee, AcctSvcrRef as id, balances, pending entries named", () => {
    const stmt = parseStatement(fixture("statement.camt053.xml"));
    expect(stmt).to.deep.include({ currency: "EUR", opening: { date: "2026-11-23", amount: "1000.00" }, closing: { date: "2026-11-24", amount: "957.35" } });
    expect(pick(stmt.rows, "bankId", "amount", "payee", "description")).to.deep.equal([
      ["2026112400012345", "-23.45", "REWE Markt GmbH", "REWE SAGT DANKE 44120371"],
      ["2026112400012346", "-19.20", "Lidl Dienstleistung GmbH", "Lidl sagt Danke"],
      [null, "-8.90", "Kino am Markt", null],
    ]);
    // Not booked yet: counted and shown, never imported (issue 48).
    expect(stmt.rows[2]!).to.include({ error: null, notBooked: "pending" });
    const rpt = parseStatement(fixture("report.camt052.xml"));
    expect(pick(rpt.rows, "bankId", "amount", "payee", "currency")).to.deep.equal([
      ["CH-20261124-000091", "4200.00", "Beispiel Treuhand AG", "CHF"],
      ["CH-20261124-000092", "-86.50", "Migros Zürich", "CHF"],
    ]);
  });

  it("reads QIF: Quicken's apostrophe years, padded days, thousands commas", () => {
    const s = parseStatement(fixture("bank.qif"));
    expect(pick(s.rows, "row", "date", "amount", "payee", "description")).to.deep.equal([
      [2, "2026-11-23", "-42.75", "Trader Joe's", "Groceries for the week"],
      [8, "2026-11-15", "2500.00", "Acme Corp", "Payroll"],
      [13, "2026-11-02", "-450.00", "City Apartments", null],
    ]);
    const german = parseStatement("!Type:Bank\nD24.11.2026\nT-1.234,56\nPMiete\n^\n");
    expect(pick(german.rows, "date", "amount")).to.deep.equal([["2026-11-24", "-1234.56"]]);
  });

  it("reads amounts and dates the way banks write them, and nothing else", () => {
    const cases: [string, "," | ".", string | null][] = [
      ["-1.234,56", ",", "-1234.56"],
      ["1.234,56-", ",", "-1234.56"],
      ["(42.00)", ".", "-42.00"],
      ["$-12.50", ".", "-12.50"],
      ["-€12,00", ",", "-12.00"],
      ["12,00 EUR", ",", "12.00"],
      ["1'234.50", ".", "1234.50"],
      ["1 234,50", ",", "1234.50"],
      ["+7", ".", "7"],
      // A DR or CR mark after the number, and the typeset minus sign U+2212 (issue 48).
      ["45.00 DR", ".", "-45.00"],
      ["1,234.56 CR", ".", "1234.56"],
      ["3.20Dr", ".", "-3.20"],
      ["\u2212 45,00", ",", "-45.00"],
      ["-45.00 DR", ".", null],
      ["DR", ".", null],
      ["12.3.4", ".", null],
      ["1,23,4", ",", null],
      ["--5", ".", null],
      ["abc", ".", null],
      ["", ".", null],
    ];
    for (const [text, decimal, want] of cases) expect(parseDecimal(text, decimal), text).to.equal(want);
    expect(parseDate("24.11.2026", "day_first")).to.equal("2026-11-24");
    expect(parseDate("11/24/2026", "month_first")).to.equal("2026-11-24");
    expect(parseDate("24/11/26", "day_first")).to.equal("2026-11-24");
    expect(parseDate("20261124", "iso")).to.equal("2026-11-24");
    expect(parseDate("2026-11-24T10:00:00+01:00", "iso")).to.equal("2026-11-24");
    expect(parseDate("31.02.2026", "day_first")).to.equal(null);
    expect(parseDate("11/24/2026", "day_first")).to.equal(null);
  });

  it("refuses what is not a statement, naming the field", () => {
    expect(refused(() => parseStatement("Dear Sir, thank you for your letter.")).details).to.include({ field: "statement" });
    expect(refused(() => parseStatement("   ")).details).to.include({ field: "statement" });
    expect(refused(() => parseStatement("<?xml version='1.0'?><Document><Other/></Document>")).message).to.match(/neither OFX nor a CAMT/);
    expect(refused(() => parseStatement("<?xml version='1.0'?><Document><BkToCstmrStmt><Stmt><Ntry></Stmt></BkToCstmrStmt></Document>")).message).to.match(
      /not well-formed/,
    );
    // A DOCTYPE with an external entity passes the validator; the parser's refusal is a field error too.
    const doctype = refused(() =>
      parseStatement('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document><BkToCstmrStmt><Stmt/></BkToCstmrStmt></Document>'),
    );
    expect(doctype.details).to.include({ field: "statement" });
    expect(doctype.message)
      .to.match(/DOCTYPE/)
      .and.not.to.include("passwd");
    expect(refused(() => parseStatement("OFXHEADER:100\nDATA:OFXSGML\n<OFX><SIGNONMSGSRSV1></SIGNONMSGSRSV1></OFX>")).message).to.match(
      /no bank or credit card statement/,
    );
    expect(refused(() => parseStatement(fixture("checking-us.csv"), "csv", { amount_column: "Betrag" })).details).to.include({
      field: "mapping.amount",
    });
    expect(refused(() => parseStatement(fixture("checking-us.csv"), "csv", { header_row: 99 })).details).to.include({ field: "mapping.header_row" });
    expect(refused(() => parseStatement('Date,Payee,Amount\n2026-11-02,"Cafe,-3.50\n', "csv", { delimiter: '"' })).details).to.include({ field: "statement" });
  });
});
