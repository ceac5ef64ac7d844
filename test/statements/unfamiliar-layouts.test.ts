/**
 * Layouts of banks outside the corpus that read wrong before (issue 48, probed with exports written from
 * the banks' public descriptions): each test names what its cells must tell.
 */
import { expect } from "chai";
import { parseStatement } from "../../src/statements/parse.js";

describe("statements of unfamiliar layouts, read by their cells (issue 48)", () => {
  it("takes the purpose and payee from text columns, never from an empty column named so or a numbered reference (UBS Description1-3, Footnotes)", () => {
    const text = [
      "Account number:;0235 00123456.01",
      "From:;2026-11-01",
      "Until:;2026-11-30",
      "Opening balance:;12543.90",
      "Closing balance:;18680.95",
      "",
      "Trade date;Booking date;Currency;Debit;Credit;Balance;Transaction no.;Description1;Description2;Description3;Footnotes;",
      "2026-11-25;2026-11-25;CHF;;8450.00;18680.95;9930000004;Arbeitgeber AG;Lohn November;Transaction no. 9930000004;;",
      "2026-11-20;2026-11-20;CHF;-119.00;;10230.95;9930000003;Swisscom;eBill Rechnung;Transaction no. 9930000003;;",
      "2026-11-12;2026-11-12;CHF;-6.50;;10349.95;9930000002;Café Schober;Zahlung Debitkarte;Transaction no. 9930000002;;",
      "2026-11-04;2026-11-04;CHF;-87.45;;10356.45;9930000001;Coop Pronto;Zahlung Debitkarte;Transaction no. 9930000001;;",
      "2026-11-02;2026-11-02;CHF;-2100.00;;10443.90;9930000000;Immobilien AG;Miete November;Transaction no. 9930000000;;",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.slice(0, 2).map((r) => [r.amount, r.payee, r.description])).to.deep.equal([
      ["8450.00", "Arbeitgeber AG", "Lohn November"],
      ["-119.00", "Swisscom", "eBill Rechnung"],
    ]);
    // The closing balance names no day: the period's end ("Until"), not its start ("From"), dates it.
    expect(p.closing).to.deep.equal({ date: "2026-11-30", amount: "18680.95" });
  });

  it("reads an unsigned amount beside a Portuguese or Spanish Débito/Crédito column as money out and in", () => {
    const text = [
      "Data lançamento;Data valor;Descrição;Montante;Tipo;Saldo",
      "02-11-2026;02-11-2026;TRF P/ SENHORIO LDA;650,00;Débito;1.115,43",
      "05-11-2026;05-11-2026;COMPRA CONTINENTE LISBOA;34,12;Débito;1.081,31",
      "10-11-2026;10-11-2026;TRF DE EMPRESA SA ORDENADO;1.850,00;Crédito;2.931,31",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping?.sign_column).to.equal("Tipo");
    expect(p.rows.map((r) => r.amount)).to.deep.equal(["-650.00", "-34.12", "1850.00"]);
    expect(p.balanceIssues).to.equal(undefined);
  });

  it("keeps a money column with one amount that does not read: the row is invalid, the running balance is never taken for the amount (CommBank, no header)", () => {
    const text = [
      '20/11/2026,"-89.00","Direct Debit 123456 TELSTRA","+7451.71"',
      '12/11/2026,"+3850.00","Salary ACME PTY LTD","+7540.71"',
      '06/11/2026,"-4.50","CAFE SYDNEY NS AUS","+3690.71"',
      '04/11/2026,"-67.34x","WOOLWORTHS 1234 SYDNEY","+3695.21"',
      '02/11/2026,"-550.00","Transfer To Real Estate Agency","+3762.55"',
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect([p.mapping?.amount_column, p.mapping?.balance_column]).to.deep.equal(["#2", "#4"]);
    expect(p.rows.map((r) => r.amount ?? r.error?.field)).to.deep.equal(["-89.00", "3850.00", "-4.50", "amount", "-550.00"]);
  });

  it("reads a row with a payee and a balance but an amount that does not read as an invalid transaction, never as a balance line (PostFinance)", () => {
    const text = [
      "Buchungsdatum;Avisierungstext;Gutschrift in CHF;Lastschrift in CHF;Valuta;Saldo in CHF",
      '25.11.2026;"LASTSCHRIFT SWISSCOM (SCHWEIZ) AG";;99.00;25.11.2026;10423.45',
      '12.11.2026;"KAUF/DIENSTLEISTUNG CAFE SPRUENGLI";;5.20;12.11.2026;10522.45',
      '10.11.2026;"GUTSCHRIFT ARBEITGEBER AG LOHN";7120.00;;10.11.2026;10527.65',
      '04.11.2026;"KAUF/DIENSTLEISTUNG MIGROS ZUERICH";;62.45x;04.11.2026;3407.65',
      '02.11.2026;"E-FINANCE AUFTRAG IMMOBILIEN AG";;1850.00;02.11.2026;3470.10',
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.payee?.slice(0, 12), r.amount ?? r.error?.field])).to.deep.equal([
      ["LASTSCHRIFT ", "-99.00"],
      ["KAUF/DIENSTL", "-5.20"],
      ["GUTSCHRIFT A", "7120.00"],
      ["KAUF/DIENSTL", "amount"],
      ["E-FINANCE AU", "-1850.00"],
    ]);
  });

  it("shows a row with a payee and a balance but no amount as a transaction that does not read, never as a balance line", () => {
    const text = [
      "Buchungsdatum;Avisierungstext;Gutschrift in CHF;Lastschrift in CHF;Valuta;Saldo in CHF",
      '25.11.2026;"LASTSCHRIFT SWISSCOM (SCHWEIZ) AG";;99.00;25.11.2026;10423.45',
      '12.11.2026;"KAUF/DIENSTLEISTUNG CAFE SPRUENGLI";;5.20;12.11.2026;10522.45',
      '04.11.2026;"KAUF/DIENSTLEISTUNG MIGROS ZUERICH";;;04.11.2026;10527.65',
      '02.11.2026;"GUTSCHRIFT ARBEITGEBER AG LOHN";7120.00;;02.11.2026;10590.10',
      "",
    ].join("\n");
    const p = parseStatement(text, undefined, { debit_column: "Lastschrift in CHF", credit_column: "Gutschrift in CHF" });
    expect(p.rows.map((r) => [r.row, r.amount ?? r.error?.field])).to.deep.equal([
      [2, "-99.00"],
      [3, "-5.20"],
      [4, "amount"],
      [5, "7120.00"],
    ]);
  });

  it("signs unsigned amounts by a direction column (Wise's Direction IN/OUT), the holder's own name on either side never the payee", () => {
    const text = [
      "ID,Status,Direction,Created on,Source name,Source amount (after fees),Source currency,Target name,Target amount (after fees),Target currency,Reference",
      "TRANSFER-1290,CANCELLED,OUT,2026-11-20 10:01:12,Jane Doe,150.00,EUR,Pieter de Vries,150.00,EUR,Concert tickets",
      "CARD-1280,COMPLETED,OUT,2026-11-21 09:10:00,Jane Doe,19.99,EUR,Netflix,19.99,EUR,",
      "CARD-1279,COMPLETED,OUT,2026-11-14 09:11:00,Jane Doe,4.50,EUR,Coffee Company,4.50,EUR,",
      "TRANSFER-1278,COMPLETED,IN,2026-11-10 09:12:00,ACME BV,2400.00,EUR,Jane Doe,2400.00,EUR,",
      "CARD-1277,COMPLETED,OUT,2026-11-05 09:13:00,Jane Doe,23.10,EUR,Albert Heijn,23.10,EUR,",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.amount, r.payee, r.notBooked ?? "booked"])).to.deep.equal([
      ["-150.00", "Pieter de Vries", "cancelled"],
      ["-19.99", "Netflix", "booked"],
      ["-4.50", "Coffee Company", "booked"],
      ["2400.00", "ACME BV", "booked"],
      ["-23.10", "Albert Heijn", "booked"],
    ]);
  });
  it("reads a status column whose booked word no list knows by the words beside it that say not booked (BNP Paribas Fortis Statut)", () => {
    const text = [
      "Numéro de séquence;Date d'exécution;Date valeur;Montant;Devise du compte;Numéro de compte;Type de transaction;Contrepartie;Nom de la contrepartie;Communication;Détails;Statut;Motif du refus",
      "2026-0014;28/11/2026;28/11/2026;-42,50;EUR;BE68 5390 0754 7034;Paiement par carte;;COLRUYT ETTERBEEK;;;En attente;",
      "2026-0013;26/11/2026;26/11/2026;-120,00;EUR;BE68 5390 0754 7034;Virement en euros;BE71 0961 2345 6769;GARAGE DUPONT;Facture 88;;Refusé;Provision insuffisante",
      "2026-0012;20/11/2026;20/11/2026;-15,99;EUR;BE68 5390 0754 7034;Paiement;BE71 0961 2345 6769;NETFLIX.COM;Domiciliation;Domiciliation NETFLIX.COM;Verwerkt OK;",
      "2026-0011;14/11/2026;14/11/2026;2415,00;EUR;BE68 5390 0754 7034;Virement en euros;BE71 0961 2345 6769;ACME BELGIUM SA;Salaire;Salaire ACME BELGIUM SA;Verwerkt OK;",
      "2026-0010;07/11/2026;07/11/2026;-28,75;EUR;BE68 5390 0754 7034;Paiement;BE71 0961 2345 6769;CARREFOUR MARKET IXELLES;Paiement par carte;Paiement par carte CARREFOUR;Verwerkt OK;",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.amount, r.notBooked ?? null])).to.deep.equal([
      ["-42.50", "pending"],
      ["-120.00", "declined"],
      ["-15.99", null],
      ["2415.00", null],
      ["-28.75", null],
    ]);
  });
  it("takes as purpose a text of its own, never one that repeats the counterparty behind a booking word (KBC Omschrijving beside Vrije mededeling)", () => {
    const text = [
      "Rekeningnummer;Rubrieknaam;Naam;Munt;Afschriftnummer;Datum;Omschrijving;Valuta;Bedrag;Saldo;Naam tegenpartij;Vrije mededeling",
      "BE68539007547034;Zichtrekening;JANSSENS PIETER;EUR;00011;03/11/2026;EUROPESE OVERSCHRIJVING NAAR IMMO VERHUUR BV;03/11/2026;-850,00;1026,50;Immo Verhuur BV;Huur november",
      "BE68539007547034;Zichtrekening;JANSSENS PIETER;EUR;00011;05/11/2026;BETALING BANCONTACT COLRUYT GENT;05/11/2026;-43,21;983,29;Colruyt Gent;Kaart 1234 Gent",
      "BE68539007547034;Zichtrekening;JANSSENS PIETER;EUR;00011;12/11/2026;EUROPESE OVERSCHRIJVING VAN WERKGEVER NV;12/11/2026;2890,00;3873,29;Werkgever NV;Loon oktober",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.payee, r.description])).to.deep.equal([
      ["Immo Verhuur BV", "Huur november"],
      ["Colruyt Gent", "Kaart 1234 Gent"],
      ["Werkgever NV", "Loon oktober"],
    ]);
  });
  it("keeps the text of a column of words that read like bank codes once their spaces are gone (RBC's Description 2: IDP PURCHASE, BILL PAYMENT)", () => {
    const text = [
      '"Account Type","Account Number","Transaction Date","Cheque Number","Description 1","Description 2","CAD$","USD$"',
      'Chequing,01234-5678901,11/2/2026,,"MORTGAGE PAYMENT","RBC MORTGAGE 1234",-1600.00,',
      'Chequing,01234-5678901,11/5/2026,,"LOBLAWS #1123","IDP PURCHASE",-87.45,',
      'Chequing,01234-5678901,11/13/2026,,"PAYROLL DEPOSIT","MAPLE LEAF CORP",3980.50,',
      'Chequing,01234-5678901,11/17/2026,,"TIM HORTONS #4456","IDP PURCHASE",-4.75,',
      'Chequing,01234-5678901,11/26/2026,,"BELL CANADA","BILL PAYMENT",-112.99,',
      "",
    ].join("\n");
    const p = parseStatement(text);
    // Both texts kept on every row, whichever of the two is read as the payee.
    for (const [i, [d1, d2]] of [
      ["MORTGAGE PAYMENT", "RBC MORTGAGE 1234"],
      ["LOBLAWS #1123", "IDP PURCHASE"],
      ["PAYROLL DEPOSIT", "MAPLE LEAF CORP"],
      ["TIM HORTONS #4456", "IDP PURCHASE"],
      ["BELL CANADA", "BILL PAYMENT"],
    ].entries())
      expect([p.rows[i]!.payee, p.rows[i]!.description].sort(), `row ${i + 1}`).to.deep.equal([d1, d2].sort());
  });

  describe("keeps text the mapping does not read (issue 48, third probe: text was lost with no warning)", () => {
    it("a counterparty's name filled on transfers only, beside a note and a booking type (ČSOB)", () => {
      const text = [
        "číslo účtu;datum zaúčtování;částka;měna;zůstatek;číslo účtu protiúčtu;kód banky protiúčtu;název účtu protiúčtu;variabilní symbol;označení operace;ID transakce;poznámka",
        "123456789/0300;02.11.2026;-1 234,50;CZK;20 265,50;;;;;Transakce platební kartou;900000;ALBERT HYPERMARKET PRAHA",
        "123456789/0300;03.11.2026;-15 000,00;CZK;5 265,50;1234567/0800;0800;PETR NOVAK;202611;Odchozí úhrada;900001;NAJEM LISTOPAD",
        "123456789/0300;05.11.2026;48 500,00;CZK;53 765,50;7654321/0100;0100;ACME S.R.O.;;Příchozí úhrada;900002;MZDA",
        "123456789/0300;07.11.2026;-899,00;CZK;52 866,50;2222222/2010;2010;T-MOBILE CZ;2026113;Inkaso;900003;FAKTURA 11/2026",
        "123456789/0300;09.11.2026;-39,00;CZK;52 827,50;;;;;Poplatek;900004;POPLATEK ZA VEDENI UCTU",
        "123456789/0300;11.11.2026;-2 000,00;CZK;50 827,50;;;;;Výběr z bankomatu;900005;VYBER Z BANKOMATU",
        "",
      ].join("\n");
      const p = parseStatement(text);
      const said = p.rows.map((r) => `${r.payee ?? ""} ${r.description ?? ""}`);
      for (const name of ["PETR NOVAK", "ACME S.R.O.", "T-MOBILE CZ"])
        expect(
          said.some((t) => t.includes(name)),
          name,
        ).to.equal(true);
      expect(p.rows.map((r) => r.amount)).to.deep.equal(["-1234.50", "-15000.00", "48500.00", "-899.00", "-39.00", "-2000.00"]);
    });

    it("a third varied text beside the payee and purpose (DBS Transaction Ref1-3, a transaction code chosen as the purpose)", () => {
      const text = [
        "Account Details For:,POSB eSavings Account 123-45678-9",
        "Statement as at:,12 Nov 2026",
        "Ledger Balance:,6243.45",
        "",
        "Transaction Date,Reference,Debit Amount,Credit Amount,Transaction Ref1,Transaction Ref2,Transaction Ref3",
        "12 Nov 2026,GRO,45.60, ,SP SERVICES,GIRO ELECTRICITY,REF5000",
        "09 Nov 2026,AWL,100.00, ,ATM WITHDRAWAL,TAMPINES CENTRAL,REF5001",
        "07 Nov 2026,UMC,8.90, ,GRAB RIDES,SINGAPORE TAXI,REF5002",
        "05 Nov 2026,SAL, ,5600.00,SALARY,ACME PTE LTD,REF5003",
        "02 Nov 2026,POS,12.50, ,NETS QR PAYMENT,FAIRPRICE BEDOK,REF5004",
        "",
      ].join("\n");
      const p = parseStatement(text);
      const said = p.rows.map((r) => `${r.payee ?? ""} ${r.description ?? ""}`);
      for (const words of ["SP SERVICES", "GIRO ELECTRICITY", "ACME PTE LTD", "FAIRPRICE BEDOK", "NETS QR PAYMENT"])
        expect(
          said.some((t) => t.includes(words)),
          words,
        ).to.equal(true);
    });

    it("the only text of a row in a column the mapping does not read (PKO BP's fee row: Tytuł in Opis transakcji)", () => {
      const text = [
        '"Data operacji","Data waluty","Typ transakcji","Kwota","Waluta","Saldo po transakcji","Opis transakcji","","",""',
        '"2026-11-12","2026-11-12","Opłata","-7.00","PLN","8278.51","Tytuł: OPLATA ZA KARTE","","",""',
        '"2026-11-09","2026-11-09","Wypłata z bankomatu","-200.00","PLN","8285.51","Tytuł: 000004498849","Lokalizacja: Adres: BANKOMAT EURONET Miasto: WARSZAWA","Data wykonania operacji: 2026-11-09","Numer karty: 425125******1234"',
        '"2026-11-07","2026-11-07","Zlecenie stałe","-89.00","PLN","8485.51","Rachunek odbiorcy: 12 1020 1234 0000 1234 5678 9030","Nazwa odbiorcy: ORANGE POLSKA","Tytuł: FAKTURA 11/2026",""',
        '"2026-11-05","2026-11-05","Przelew na rachunek","7800.00","PLN","8574.51","Rachunek nadawcy: 12 1020 1234 0000 1234 5678 9020","Nazwa nadawcy: ACME SP Z O O","Tytuł: WYNAGRODZENIE",""',
        '"2026-11-02","2026-11-02","Płatność kartą","-45.99","PLN","774.51","Tytuł: 000004498850","Lokalizacja: Adres: BIEDRONKA 1234 Miasto: WARSZAWA","Data wykonania operacji: 2026-11-02","Numer karty: 425125******1234"',
        "",
      ].join("\n");
      const p = parseStatement(text);
      const fee = p.rows[0]!;
      expect(`${fee.payee ?? ""} ${fee.description ?? ""}`).to.include("OPLATA ZA KARTE");
      expect(p.rows.map((r) => r.amount)).to.deep.equal(["-7.00", "-200.00", "-89.00", "7800.00", "-45.99"]);
    });
  });

  it("reads a dash in a debit or credit cell as no amount, so the pair is found by its cells (Banorte Depósitos/Retiros, $ amounts, a totals trailer)", () => {
    const text = [
      "Cuenta,Fecha De Operación,Fecha,Referencia,Descripción,Cod. Transac,Sucursal,Depósitos,Retiros,Saldo,Movimiento,Descripción Detallada",
      `'0123456789,11/11/2026,11/11/2026,7005,COMISION E IVA,D01,0123,"-","$13.92","$15,847.08",6,COMISION E IVA REF 7005`,
      `'0123456789,09/11/2026,09/11/2026,7004,RETIRO CAJERO BANORTE,D01,0123,"-","$1,200.00","$15,861.00",5,RETIRO CAJERO BANORTE REF 7004`,
      `'0123456789,05/11/2026,05/11/2026,7002,PAGO DE NOMINA ACME MEXICO,C01,0123,"$22,000.00","-","$17,061.00",3,PAGO DE NOMINA ACME MEXICO REF 7002`,
      `'0123456789,03/11/2026,03/11/2026,7001,SPEI ENVIADO RENTA NOV LUIS PEREZ,D01,0123,"-","$9,500.00","-$4,939.00",2,SPEI ENVIADO RENTA NOV REF 7001`,
      `,,,,Total Depósitos,,,"$22,000.00",,,,`,
      `,,,,Total Retiros,,,,"$10,713.92",,,`,
      "",
    ].join("\n");
    const p = parseStatement(text, undefined, { date_order: "day_first" });
    expect(p.mapping).to.include({ debit_column: "Retiros", credit_column: "Depósitos" });
    expect(p.rows.map((r) => r.amount)).to.deep.equal(["-13.92", "-1200.00", "22000.00", "-9500.00"]);
    expect(p.balanceIssues).to.equal(undefined);
  });

  it("reads the amount beside balance lines that fill the balance column only (Itaú: SALDO ANTERIOR, SALDO TOTAL DISPONÍVEL DIA after each day)", () => {
    const text = [
      "data;lançamento;ag./origem;valor (R$);saldos (R$)",
      "30/10/2026;SALDO ANTERIOR;;;1.523,40",
      "02/11/2026;PIX TRANSF MARIA S02/11;;-150,00;",
      "02/11/2026;SALDO TOTAL DISPONÍVEL DIA;;;1.373,40",
      "03/11/2026;PAY SUPERMERCADO ZAF;;-87,35;",
      "03/11/2026;TED 341.1234 JOAO P;;2.500,00;",
      "03/11/2026;SALDO TOTAL DISPONÍVEL DIA;;;3.786,05",
      "05/11/2026;TAR PACOTE ITAU;;-39,90;",
      "05/11/2026;SALDO TOTAL DISPONÍVEL DIA;;;3.746,15",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.amount, r.payee, r.error])).to.deep.equal([
      ["-150.00", "PIX TRANSF MARIA S02/11", null],
      ["-87.35", "PAY SUPERMERCADO ZAF", null],
      ["2500.00", "TED 341.1234 JOAO P", null],
      ["-39.90", "TAR PACOTE ITAU", null],
    ]);
  });

  it("tells apart two columns the header names alike (UOB's header over two rows: Withdrawal and Deposit above, (SGD) and (SGD) below)", () => {
    const text = [
      "Account Number:,123-456-789-0",
      "Statement Period:,01 Nov 2026 To 12 Nov 2026",
      "",
      "Transaction,Transaction,Withdrawal,Deposit,Available",
      "Date,Description,(SGD),(SGD),Balance (SGD)",
      '02 Nov 2026,NTUC FAIRPRICE BEDOK,"18.40","","1,871.60"',
      '04 Nov 2026,FAST PAYMENT RENT LIM BEE HOON,"2,200.00","","-328.40"',
      '06 Nov 2026,GIRO SALARY ACME ASIA,"","6,100.00","5,771.60"',
      '08 Nov 2026,SINGTEL GIRO,"62.00","","5,709.60"',
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping).to.include({ debit_column: "(SGD)", credit_column: "(SGD) #4" });
    expect(p.rows.map((r) => r.amount)).to.deep.equal(["-18.40", "-2200.00", "6100.00", "-62.00"]);
    expect(p.closing).to.deep.equal({ date: "2026-11-08", amount: "5709.60" });
  });

  it("reads cells wrapped in single quotes for what they hold (FNB: ' 2 Nov 2026', 'POS Purchase'; each line led by its record type)", () => {
    const text = [
      "2,'Name:','MR J SMITH'",
      "3,'Account:','62012345678','FNB Easy Account'",
      "5,Number,Date,Description1,Description2,Description3,Amount,Balance,Accrued Charges",
      "5,1,' 2 Nov 2026','POS Purchase','Checkers Sea Point','4587*1234  02 Nov',-345.60,3102.18,0.00",
      "5,2,' 4 Nov 2026','Internet Pmt To','Rent Nov J Botha','4587*1234  04 Nov',-7500.00,-4397.82,0.00",
      "5,3,'13 Nov 2026','Magtape Credit','Salary Acme SA','4587*1234  13 Nov',18500.00,14102.18,10.50",
      "",
    ].join("\n");
    const p = parseStatement(text, undefined, { header_row: 3 });
    expect(p.rows.map((r) => [r.date, r.amount, r.payee, r.description])).to.deep.equal([
      ["2026-11-02", "-345.60", "POS Purchase", "Checkers Sea Point"],
      ["2026-11-04", "-7500.00", "Internet Pmt To", "Rent Nov J Botha"],
      ["2026-11-13", "18500.00", "Magtape Credit", "Salary Acme SA"],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-13", amount: "14102.18" });
  });

  describe("dates no day above 12 decides (issue 48, third probe: the other order, answered, booked the rows months away and the hand-typed twins twice)", () => {
    it("reads dotted dates day-first without asking: no locale writes month.day.year (Raiffeisen ELBA, no header)", () => {
      const text = [
        "11.11.2026;Kontoführung;11.11.2026;-6,90;EUR;11.11.2026 15:35:12:123",
        "09.11.2026;Auszahlung Karte MC/000001234 BANKOMAT 12345;09.11.2026;-100,00;EUR;09.11.2026 14:34:12:123",
        "05.11.2026;Gehalt November ACME GMBH;05.11.2026;2650,00;EUR;05.11.2026 12:32:12:123",
        "03.11.2026;Dauerauftrag Miete November HAUSVERWALTUNG GRUBER;03.11.2026;-850,00;EUR;03.11.2026 11:31:12:123",
        "",
      ].join("\n");
      const p = parseStatement(text);
      expect(p.rows.map((r) => [r.date, r.amount])).to.deep.equal([
        ["2026-11-11", "-6.90"],
        ["2026-11-09", "-100.00"],
        ["2026-11-05", "2650.00"],
        ["2026-11-03", "-850.00"],
      ]);
      expect(p.unsure?.keys ?? []).not.to.include("date_order");
    });

    it("reads first the order that keeps a statement's dates within a month, and still asks (ICICI: 02/11 … 12/11 is November, not February to December)", () => {
      const text = [
        "S No.,Value Date,Transaction Date,Cheque Number,Transaction Remarks,Withdrawal Amount (INR ),Deposit Amount (INR ),Balance (INR )",
        '1,02/11/2026,02/11/2026,-,"UPI/630512345678/SWIGGY/Payment","1,250.00","0.00","43,960.55"',
        '2,03/11/2026,03/11/2026,-,"NEFT-RENT NOV-MR A SHARMA","25,000.00","0.00","18,960.55"',
        '3,05/11/2026,05/11/2026,-,"NEFT-SALARY-ACME TECHNOLOGIES","0.00","85,000.00","1,03,960.55"',
        '4,12/11/2026,12/11/2026,-,"SMS CHARGES INCL GST","118.00","0.00","1,03,842.55"',
        "",
      ].join("\n");
      const p = parseStatement(text);
      expect(p.rows.map((r) => r.date)).to.deep.equal(["2026-11-02", "2026-11-03", "2026-11-05", "2026-11-12"]);
      expect(p.unsure?.keys).to.include("date_order");
    });
  });

  it("reads as the amount the column that sums two others on every row, where no balance tells (Up: Total = Subtotal + Round Up)", () => {
    const text = [
      "Time,BSB / Account Number,Transaction Type,Payee,Description,Category,Tags,Subtotal (AUD),Currency,Subtotal (Transaction Currency),Round Up (AUD),Total (AUD),Payment Method,Settled Date",
      "2026-11-09 17:21:10,633-123 / 12345678,Purchase,Spotify,SPOTIFY SYDNEY,Entertainment,,-19.98,AUD,-19.98,-0.01,-19.99,Card,2026-11-10",
      "2026-11-07 10:24:10,633-123 / 12345678,Purchase,Woolworths,WOOLWORTHS SYDNEY,Groceries,,-56.00,AUD,-56.00,0.00,-56.00,Card,2026-11-08",
      "2026-11-05 12:20:10,633-123 / 12345678,Deposit,Acme Pty Ltd,ACME PTY LTD SYDNEY,Income,,3100.00,AUD,3100.00,0.00,3100.00,BPAY,2026-11-06",
      "2026-11-02 14:22:10,633-123 / 12345678,Purchase,Gumption Coffee,GUMPTION COFFEE SYDNEY,Coffee,,-4.00,AUD,-4.00,-0.50,-4.50,Card,2026-11-03",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping?.amount_column).to.equal("Total (AUD)");
    expect(p.rows.map((r) => [r.payee, r.amount])).to.deep.equal([
      ["Spotify", "-19.99"],
      ["Woolworths", "-56.00"],
      ["Acme Pty Ltd", "3100.00"],
      ["Gumption Coffee", "-4.50"],
    ]);
  });

  it("never reads a balance after each row as the amount, where a filtered export's before/after columns have names no list knows", () => {
    // A search result: rows of one account but not one after the other, so no balance runs from row to row.
    const text = [
      "Fecha,Concepto,Movimiento,Anterior,Posterior",
      "20/11/2026,Compra Mercadona,-52.30,1200.00,1147.70",
      "15/11/2026,Nomina Acme,2100.00,310.40,2410.40",
      "08/11/2026,Recibo Iberdrola,-61.20,980.00,918.80",
      "03/11/2026,Bizum de Ana,25.00,640.00,665.00",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping?.amount_column).to.equal("Movimiento");
    expect(p.rows.map((r) => r.amount)).to.deep.equal(["-52.30", "2100.00", "-61.20", "25.00"]);
  });
});
