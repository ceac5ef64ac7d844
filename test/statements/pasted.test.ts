/**
 * A statement pasted into a chat (issue 48): a markdown table or a web page's table whose tabs the chat
 * collapsed into spaces reads as the table it was, with the bank's balance rows and S/H signs, and the row
 * numbers of the pasted text; a CSV is left as it is.
 */
import { expect } from "chai";
import { parseStatement } from "../../src/statements/parse.js";
import { unpasted } from "../../src/statements/pasted.js";

describe("statements pasted into a chat (issue 48)", () => {
  it("reads a markdown table: the rule line is no row, an unnamed S/H column signs the amounts, Anfangssaldo and Endsaldo are balances", () => {
    const text = [
      "| Buchungstag | Empfänger/Auftraggeber | Verwendungszweck | Umsatz | |",
      "|---|---|---|---|---|",
      "| 02.11.2026 | Wohnbau eG | Miete 11/2026 | 870,00 | S |",
      "| 10.11.2026 | Muster GmbH | Lohn/Gehalt 10/2026 | 2.980,00 | H |",
      "| 12.11.2026 | Bäckerei Klein | Kartenzahlung | 3,20 | S |",
      "| 31.10.2026 | | Anfangssaldo | 4.123,45 | H |",
      "| 30.11.2026 | | Endsaldo | 6.230,25 | H |",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.row, r.date, r.amount, r.payee, r.error])).to.deep.equal([
      [3, "2026-11-02", "-870.00", "Wohnbau eG", null],
      [4, "2026-11-10", "2980.00", "Muster GmbH", null],
      [5, "2026-11-12", "-3.20", "Bäckerei Klein", null],
    ]);
    expect(p.opening).to.deep.equal({ date: "2026-10-31", amount: "4123.45" });
    expect(p.closing).to.deep.equal({ date: "2026-11-30", amount: "6230.25" });
  });

  it("reads columns a chat aligned with runs of spaces, keeping single spaces inside a cell (1 234,56; ICA Kvantum)", () => {
    const text = [
      "Reskontradatum   Transaktionsdatum   Text   Belopp   Saldo",
      "2026-11-25   2026-11-25   LÖN ARBETSGIVAREN   29 650,00   40 149,50",
      "2026-11-12   2026-11-12   ESPRESSO HOUSE   -38,00   10 499,50",
      "2026-11-05   2026-11-05   HEMKÖP CITY   -312,50   10 537,50",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.date, r.amount, r.payee])).to.deep.equal([
      ["2026-11-25", "29650.00", "LÖN ARBETSGIVAREN"],
      ["2026-11-12", "-38.00", "ESPRESSO HOUSE"],
      ["2026-11-05", "-312.50", "HEMKÖP CITY"],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-25", amount: "40149.50" });
  });

  it("leaves a delimited export as it is, double spaces inside its cells included", () => {
    const csv = 'Date,Description,Amount\n2026-11-03,"TESCO  STORES  3012",-23.56\n2026-11-04,"PRET  A  MANGER",-3.20\n';
    expect(unpasted(csv)).to.equal(csv);
    const semicolons = "Datum;Text;Betrag\n03.11.2026;REWE  Markt  Köln;-23,56\n04.11.2026;Bäckerei  Klein;-3,20\n";
    expect(unpasted(semicolons)).to.equal(semicolons);
  });

  it("reads a markdown table the chat put in a code fence below a line of its own words, row numbers as pasted", () => {
    const text = [
      "Here is my statement:",
      "```",
      "| Date | Description | Amount | Balance |",
      "|:---|:---|---:|---:|",
      "| 03/11/2026 | Oakwood Lettings | -900.00 | 2894.94 |",
      "| 05/11/2026 | Tesco | -23.45 | 2871.49 |",
      "| 12/11/2026 | Acme Ltd | 3150.00 | 6021.49 |",
      "```",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.row, r.date, r.amount, r.payee, r.error])).to.deep.equal([
      [5, "2026-11-03", "-900.00", "Oakwood Lettings", null],
      [6, "2026-11-05", "-23.45", "Tesco", null],
      [7, "2026-11-12", "3150.00", "Acme Ltd", null],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-12", amount: "6021.49" });
  });

  it("reads a space-aligned table below the chat's own words, a comma inside one of its texts (Santander: issue 48, third probe)", () => {
    const pad = (cells: string[], widths: number[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("");
    const w = [18, 14, 50, 14, 0];
    const text = [
      "these are my santander movements",
      "",
      pad(["Fecha operación", "Fecha valor", "Concepto", "Importe", "Saldo"], w),
      pad(["09/11/2026", "09/11/2026", "Comision Mantenimiento", "-3,00 EUR", "2.176,20 EUR"], w),
      pad(["05/11/2026", "05/11/2026", "Nomina Acme Iberia Sl", "1.950,00 EUR", "2.179,20 EUR"], w),
      pad(["03/11/2026", "03/11/2026", "Transferencia A Favor De Lucia Garcia Alquiler", "-780,00 EUR", "229,20 EUR"], w),
      pad(["02/11/2026", "02/11/2026", "Compra Mercadona Valencia, Tarjeta 4321", "-52,30 EUR", "1.009,20 EUR"], w),
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.amount, r.payee])).to.deep.equal([
      ["-3.00", "Comision Mantenimiento"],
      ["1950.00", "Nomina Acme Iberia Sl"],
      ["-780.00", "Transferencia A Favor De Lucia Garcia Alquiler"],
      ["-52.30", "Compra Mercadona Valencia, Tarjeta 4321"],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-09", amount: "2176.20" });
  });
});
