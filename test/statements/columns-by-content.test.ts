/**
 * Issue 48, items 4–6: which CSV column is which, told by the cells where the header's words do not tell
 * (src/statements/columns-by-content.ts). The leave-one-bank-out check over the whole corpus (each layout
 * read with the words only its bank uses withheld from the detector, test/helpers/leave-one-bank-out.ts)
 * and the kinds of layout that lost money signs or all text before: an unknown debit/credit pair, a
 * "Transaction Description", two counterparty columns with the holder's own name in one of them.
 * Engine-free; the same readings go through import_transactions on both engines in
 * test/tools/import-leave-one-bank-out.test.ts.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { refused } from "../helpers/refused.js";
import { VOCABULARY } from "../../src/statements/csv.js";
import { parseStatement } from "../../src/statements/parse.js";
import { KNOWN_MISSES, corpus, differences, read, textOf, vocabularyWithout, withheldWords } from "../helpers/leave-one-bank-out.js";

const withheld = withheldWords();
const everyWord = Object.values(VOCABULARY).flat();
const pick = (rows: readonly object[], ...keys: string[]) => rows.map((r) => keys.map((k) => (r as Record<string, unknown>)[k]));
const layout = (name: string) => corpus.find((l) => l.layout === name)!;

/** How many layouts read as with the whole vocabulary when the given words are withheld. */
function rate(words: (l: (typeof corpus)[number]) => readonly string[]): { right: number; wrong: string[] } {
  const wrong: string[] = [];
  for (const l of corpus) {
    let diffs: string[];
    try {
      diffs = differences(l, read(l), read(l, vocabularyWithout(words(l))));
    } catch (err) {
      diffs = [(err as Error).message];
    }
    if (diffs.length > 0) wrong.push(l.layout);
  }
  return { right: corpus.length - wrong.length, wrong };
}

describe("CSV columns by content (issue 48)", () => {
  describe("leave one bank out: each layout read without the header words only its bank uses", () => {
    for (const l of corpus) {
      it(`${l.layout}${withheld.get(l.layout)!.length === 0 ? " (no word of its own)" : ` without ${withheld.get(l.layout)!.join(", ")}`}`, () => {
        const expected = read(l);
        expect(
          expected.rows.every((r) => r.error === null || r.notBooked !== undefined),
          `${l.layout} reads with the whole vocabulary`,
        ).to.equal(true);
        const diffs = differences(l, expected, read(l, vocabularyWithout(withheld.get(l.layout)!)));
        if (KNOWN_MISSES[l.layout]) expect(diffs, `${l.layout} reads right now: take it off KNOWN_MISSES`).not.to.deep.equal([]);
        else expect(diffs).to.deep.equal([]);
      });
    }

    it("withholds words at all: most banks have header words of their own", () => {
      expect([...withheld.values()].filter((w) => w.length > 0).length).to.be.at.least(corpus.length / 2);
    });

    it("docs/import.md states the rates measured here (leave one bank out, and every word withheld)", () => {
      const lobo = rate((l) => withheld.get(l.layout)!);
      const bare = rate(() => everyWord);
      const doc = readFileSync(new URL("../../docs/import.md", import.meta.url), "utf8");
      expect(doc).to.include(`leave one bank out: **${lobo.right} of ${corpus.length} layouts**`);
      expect(doc).to.include(`every word withheld: ${bare.right} of ${corpus.length} (not ${bare.wrong.map((w) => `\`${w}\``).join(", ")})`);
    });
  });

  describe("the kinds of layout that were read wrong", () => {
    it("a debit/credit pair under names the detector does not know is a pair, never one signed column (DNB)", () => {
      const s = read(layout("no-dnb-csv"));
      expect(s.mapping).to.include({ debit_column: "Ut fra konto", credit_column: "Inn på konto" });
      expect(s.mapping).not.to.have.property("amount_column");
      expect(pick(s.rows, "amount", "error")).to.deep.equal([
        ["-42.75", null],
        ["-64.00", null],
        ["-3.20", null],
        ["3150.00", null],
        ["-23.45", null],
        ["-900.00", null],
      ]);
      // Which is money out was read by which fills more rows: asked, not silently taken.
      expect(s.unsure?.keys).to.deep.equal(["debit_column"]);
    });

    it("a running balance tells which column of an unknown pair is money out, and is the closing balance", () => {
      const text = [
        "Dato;Tekst;Inn;Ut;Stand",
        "03.11.2026;Husleie;;900,00;2.894,94",
        "12.11.2026;Lønn;3.150,00;;6.044,94",
        "18.11.2026;Kaffe;;3,20;6.041,74",
      ].join("\n");
      const s = parseStatement(text);
      expect(s.mapping).to.include({ debit_column: "Ut", credit_column: "Inn", balance_column: "Stand" });
      expect(pick(s.rows, "amount", "payee")).to.deep.equal([
        ["-900.00", "Husleie"],
        ["3150.00", "Lønn"],
        ["-3.20", "Kaffe"],
      ]);
      expect(s.unsure).to.equal(undefined);
      expect(s.closing).to.deep.equal({ date: "2026-11-18", amount: "6041.74" });
    });

    it("a pair that fills as many rows each, with nothing to tell them apart, is refused with the mapping to send", () => {
      const text = ["Dato;Tekst;A;B", "03.11.2026;Husleie;;900,00", "12.11.2026;Lønn;3.150,00;"].join("\n");
      const err = refused(() => parseStatement(text));
      expect(err.details).to.include({ field: "mapping.debit" });
      expect(err.message).to.include('{"debit":"A","credit":"B"}');
      expect(parseStatement(text, "csv", { debit_column: "B", credit_column: "A" }).rows.map((r) => r.amount)).to.deep.equal(["-900.00", "3150.00"]);
    });

    it('"Transaction Description" is the payee; the own sort code and account number on every row are not (Lloyds)', () => {
      const s = read(layout("uk-lloyds-csv"));
      expect(s.mapping).to.include({ payee_column: "Transaction Description", debit_column: "Debit Amount", credit_column: "Credit Amount" });
      expect(pick(s.rows, "amount", "payee")).to.deep.equal([
        ["-42.75", "SAINSBURYS S/MKTS CD 1234"],
        ["-64.00", "OCTOPUS ENERGY"],
        ["-3.20", "PRET A MANGER CD 1234"],
        ["3150.00", "ACME LTD SALARY NOV"],
        ["-23.45", "TESCO STORES 2345 CD 1234"],
        ["-900.00", "OAKWOOD LETTINGS RENT NOV"],
      ]);
      expect(s.closing).to.deep.equal({ date: "2026-11-24", amount: "5911.54" });
    });

    it("two counterparty columns with the holder's own name in one of them, and Vorgang/Verwendungszweck (Volksbank)", () => {
      const s = read(layout("de-volksbank-classic-csv"));
      expect(s.mapping).to.include({
        payer_column: "Auftraggeber/Zahlungsempfänger",
        payee_column: "Empfänger/Zahlungspflichtiger",
        description_column: "Vorgang/Verwendungszweck",
      });
      expect(pick(s.rows, "amount", "payee")).to.deep.equal([
        ["-42.75", "REWE Markt GmbH"],
        ["-64.00", "Stadtwerke Musterstadt"],
        ["-3.20", "Bäckerei Schmidt"],
        ["3150.00", "Acme GmbH"],
        ["-23.45", "Edeka Center"],
        ["-900.00", "Hausverwaltung Müller"],
      ]);
      expect(s.rows.map((r) => r.description?.split(/\r?\n/)[1])).to.deep.equal([
        "REWE SAGT DANKE 44120371",
        "Abschlag Strom November 2026",
        "girocard 18.11",
        "Gehalt November 2026",
        "EDEKA SAGT DANKE 0815",
        "Miete November 2026 Whg 3 links",
      ]);
    });

    it("the same, with the export's balance rows at the end (their counterparty columns empty)", () => {
      const l = layout("de-volksbank-classic-csv");
      const text = textOf(l).replace(
        /;;;;;;;;;;;;\r\n$/,
        '"01.11.2026";;;;;;;;"Anfangssaldo";;"EUR";"3.794,94";"H"\r\n"24.11.2026";;;;;;;;"Endsaldo";;"EUR";"5.911,54";"H"\r\n',
      );
      expect(text).to.include("Endsaldo");
      expect(parseStatement(text).mapping).to.include({ payer_column: "Auftraggeber/Zahlungsempfänger", payee_column: "Empfänger/Zahlungspflichtiger" });
    });

    it("the account holder's name on every row is never the payee, even in a column called Name", () => {
      const text = [
        "Date,Name,Details,Amount",
        "03/11/2026,Jane Doe,OAKWOOD LETTINGS RENT,-900.00",
        "12/11/2026,Jane Doe,ACME LTD SALARY,3150.00",
        "18/11/2026,Jane Doe,PRET A MANGER,-3.20",
      ].join("\n");
      const s = parseStatement(text);
      expect(s.rows.map((r) => r.payee)).to.deep.equal(["OAKWOOD LETTINGS RENT", "ACME LTD SALARY", "PRET A MANGER"]);
    });

    it("a column whose name says money but that holds dates is not the amount; a check number is not either", () => {
      const text = [
        "Date,Narration,Chq./Ref.No.,Value Dt,Withdrawal Amt.,Deposit Amt.,Closing Balance",
        "03/11/26,RENT NOVEMBER,0000412345678,03/11/26,900.00,,2894.94",
        "12/11/26,SALARY ACME,0000412345679,12/11/26,,3150.00,6044.94",
        "18/11/26,UPI COFFEE,0000412345680,18/11/26,3.20,,6041.74",
      ].join("\n");
      const s = parseStatement(text);
      expect(s.mapping).to.include({
        debit_column: "Withdrawal Amt.",
        credit_column: "Deposit Amt.",
        balance_column: "Closing Balance",
        payee_column: "Narration",
      });
      expect(s.rows.map((r) => r.amount)).to.deep.equal(["-900.00", "3150.00", "-3.20"]);
      expect(s.closing).to.deep.equal({ date: "2026-11-18", amount: "6041.74" });
    });

    it('a column of S/H marks named "Soll/Haben" is the sign, never money in, when its own word is withheld', () => {
      const text = [
        "Buchungstag;Zahlungsempfänger;Vorgang/Verwendungszweck;Umsatz;Soll/Haben",
        "03.11.2026;Hausverwaltung Müller;Dauerauftrag Miete;900,00;S",
        "12.11.2026;Acme GmbH;Gehalt;3.150,00;H",
        "18.11.2026;Bäckerei Schmidt;Kartenzahlung;3,20;S",
      ].join("\n");
      const s = parseStatement(text, undefined, {}, {}, vocabularyWithout(["sollhaben"]));
      expect(s.mapping).to.include({ amount_column: "Umsatz", sign_column: "Soll/Haben" });
      expect(s.mapping).not.to.have.property("credit_column");
      expect(s.rows.map((r) => r.amount)).to.deep.equal(["-900.00", "3150.00", "-3.20"]);
    });

    it("an amount with a sign column, neither named in a known word, and the purpose beside the counterparty", () => {
      const text = [
        "Tag;Gegenseite;Zweck der Zahlung;Summe;Kz",
        "03.11.2026;Hausverwaltung Müller;Miete November 2026 Whg 3 links;900,00;S",
        "12.11.2026;Acme GmbH;Gehalt November 2026 Personalnummer 4711;3.150,00;H",
        "18.11.2026;Bäckerei Schmidt;girocard 18.11 Filiale Marktplatz;3,20;S",
      ].join("\n");
      const s = parseStatement(text);
      expect(s.mapping).to.include({
        date_column: "Tag",
        amount_column: "Summe",
        sign_column: "Kz",
        payee_column: "Gegenseite",
        description_column: "Zweck der Zahlung",
      });
      expect(pick(s.rows, "amount", "payee")).to.deep.equal([
        ["-900.00", "Hausverwaltung Müller"],
        ["3150.00", "Acme GmbH"],
        ["-3.20", "Bäckerei Schmidt"],
      ]);
    });
  });

  describe("a fee column told by the running balance, not by its name", () => {
    const header = "Date,Description,Amount,Charges levied,Balance\n";
    const rows = ["2026-11-03,Rent,-900.00,0.00,2894.94", "2026-11-05,Cash abroad,-40.00,1.20,2853.74", "2026-11-12,Salary,3150.00,0.00,6003.74"];

    it("is the column of charges with which the balance follows every row (balance = previous + amount − fee)", () => {
      const s = parseStatement(header + rows.join("\n") + "\n", undefined, {}, {}, vocabularyWithout([...VOCABULARY.fee_column]));
      expect(s.mapping).to.include({ fee_column: "Charges levied", balance_column: "Balance" });
      expect(pick(s.rows, "amount", "description")).to.deep.equal([
        ["-900.00", null],
        ["-41.20", "fee 1.20 included"],
        ["3150.00", null],
      ]);
      expect(s.balanceIssues).to.equal(undefined);
      // A signed fee (charges written negative) is added as it stands; a balance column no name told is found with it.
      const signed = parseStatement(
        "Tag;Text;Betrag;Spesen;Stand\n03.11.2026;Miete;-900,00;;2.894,94\n05.11.2026;Bargeld;-40,00;-1,20;2.853,74\n12.11.2026;Lohn;3.150,00;;6.003,74\n",
      );
      expect(signed.mapping).to.include({ fee_column: "Spesen", balance_column: "Stand" });
      expect(signed.rows.map((r) => r.amount)).to.deep.equal(["-900.00", "-41.20", "3150.00"]);
    });

    it("is none where the balance follows the amounts alone, where the charges change sign, or where no balance tells", () => {
      const none = (text: string) => expect(parseStatement(text).mapping, text).not.to.have.property("fee_column");
      // Small non-negative numbers the balance does not need (a points column).
      none(
        "Date,Description,Amount,Points,Balance\n2026-11-03,Rent,-900.00,0.00,2894.94\n2026-11-05,Shop,-40.00,1.20,2854.94\n2026-11-12,Salary,3150.00,0.00,6004.94\n",
      );
      // Charges of both signs explain nothing.
      none(
        "Date,Description,Amount,Adj,Balance\n2026-11-03,Rent,-900.00,0.50,2894.44\n2026-11-05,Shop,-40.00,-1.20,2855.64\n2026-11-12,Salary,3150.00,0.00,6005.64\n",
      );
      // An available balance is not the ledger's, whatever runs with it.
      none(
        "Date,Description,Amount,Extra,Available\n2026-11-03,Rent,-900.00,0.00,2894.94\n2026-11-05,Cash,-40.00,1.20,2853.74\n2026-11-12,Salary,3150.00,0.00,6003.74\n",
      );
      // No balance column at all.
      none("Date,Description,Amount,Extra\n2026-11-03,Rent,-900.00,0.00\n2026-11-05,Cash,-40.00,1.20\n2026-11-12,Salary,3150.00,0.00\n");
    });

    it("is found in the corpus only where the bank writes one (Revolut's fee row), with every fee word withheld", () => {
      const withoutFee = vocabularyWithout([...VOCABULARY.fee_column]);
      const found = corpus
        .filter((l) => l.format === "csv")
        .map((l) => [l.layout, read(l, withoutFee).mapping?.fee_column] as const)
        .filter(([, fee]) => fee !== undefined);
      expect(found).to.deep.equal([["uk-revolut-fee-pending-csv", "Fee"]]);
    });
  });
});
