/**
 * What each CSV row is (issue 48): balances are never transactions, rows the bank has not booked are never
 * posted, a running balance column checks every row and names the cause, and stated balances are matched to
 * their own dates.
 */
import { expect } from "chai";
import { parseStatement } from "../../src/statements/parse.js";
import { balanceKindOf, notBookedOf } from "../../src/statements/row-kinds.js";

describe("statement rows: balances, rows not booked, a running balance (issue 48)", () => {
  it("tells a balance's name from a transaction's text", () => {
    const cases: [string, string | null][] = [
      ["Anfangssaldo", "opening"],
      ["Endsaldo", "closing"],
      ["Schlusssaldo", "closing"],
      ["Alter Kontostand", "opening"],
      ["Kontostand am 24.11.2026", "stated"],
      ["Beginning balance as of 11/01/2026", "opening"],
      ["Closing Balance", "closing"],
      ["Solde au 24/11/2026", "stated"],
      ["Balance transfer", null],
      ["Saldo-Ausgleich Kreditkarte", null],
      ["REWE SAGT DANKE", null],
    ];
    for (const [text, kind] of cases) expect(balanceKindOf(text), text).to.equal(kind);
    expect(["Pending", "PENDING", "Umsatz vorgemerkt", "Scheduled", "DECLINED", "REVERTED", "Posted", "Umsatz gebucht"].map(notBookedOf)).to.deep.equal([
      "pending",
      "pending",
      "pending",
      "scheduled",
      "declined",
      "reverted",
      null,
      null,
    ]);
  });

  it("reads balance rows at the end (text, amount and S/H, the rest empty) as the opening and closing balances, never as rows", () => {
    const text = [
      '"Buchungstag";"Valuta";"Empfänger";"Vorgang";"Währung";"Umsatz";"Soll/Haben"',
      '"05.11.2026";"05.11.2026";"Edeka";"Lastschrift";"EUR";"23,45";"S"',
      '"03.11.2026";"03.11.2026";"Müller";"Miete";"EUR";"900,00";"S"',
      '"01.11.2026";;;"Anfangssaldo";"EUR";"3.794,94";"H"',
      '"05.11.2026";;;"Endsaldo";"EUR";"2.871,49";"H"',
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => r.amount)).to.deep.equal(["-23.45", "-900.00"]);
    expect(p.opening).to.deep.equal({ date: "2026-11-01", amount: "3794.94" });
    expect(p.closing).to.deep.equal({ date: "2026-11-05", amount: "2871.49" });
  });

  it("marks rows a status column says are pending, scheduled or declined, whatever its header", () => {
    const text =
      "Date,Payee,Amount,Whatever\n2026-11-03,Rent,-900.00,Posted\n2026-11-30,Gym,-30.00,Scheduled\n2026-11-24,Cafe,-3.20,Pending\n2026-11-20,Steam,-9.99,Declined\n";
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.payee, r.notBooked ?? "booked"])).to.deep.equal([
      ["Rent", "booked"],
      ["Gym", "scheduled"],
      ["Cafe", "pending"],
      ["Steam", "declined"],
    ]);
    // A payee called "Pending" in a column of names is a payee.
    expect(parseStatement("Date,Payee,Amount\n2026-11-03,Pending,-1.00\n2026-11-04,Shop,-2.00\n").rows.every((r) => r.notBooked === undefined)).to.equal(true);
  });

  it("checks every row against the running balance: a wrong sign, a missing row and an unread fee column are named", () => {
    const header = "Date,Description,Amount,Bank fee,Balance\n";
    // Two rows are one step of the balance, too few for the cells to tell a fee column (columns-by-content.test.ts
    // reads it from three): the running balance names it.
    const rows = [
      "2026-11-03,Rent,-900.00,0.00,2894.94",
      "2026-11-05,Cash abroad,-40.00,1.20,2853.74", // the fee column (not a name the reader knows) holds 1.20
    ];
    const fee = parseStatement(header + rows.join("\n") + "\n");
    expect(fee.mapping).not.to.have.property("fee_column");
    expect(fee.balanceIssues).to.deep.equal({ issues: [{ row: 3, kind: "fee", change: "-41.20", amount: "-40.00" }], feeColumn: "Bank fee" });
    // Told, the fee is netted into the row and the balance follows.
    const told = parseStatement(header + rows.join("\n") + "\n", undefined, { fee_column: "Bank fee" });
    expect(told.balanceIssues).to.equal(undefined);
    expect(told.rows[1]).to.include({ amount: "-41.20", description: "fee 1.20 included" });
    const signs = parseStatement("Date,Description,Amount,Balance\n2026-11-03,Rent,-900.00,2894.94\n2026-11-05,Refund,-20.00,2914.94\n");
    expect(signs.balanceIssues!.issues).to.deep.equal([{ row: 3, kind: "sign", change: "20.00", amount: "-20.00" }]);
    const gap = parseStatement("Date,Description,Amount,Balance\n2026-11-03,Rent,-900.00,2894.94\n2026-11-05,Shop,-20.00,2871.74\n");
    expect(gap.balanceIssues!.issues).to.deep.equal([{ row: 3, kind: "gap", change: "-23.20", amount: "-20.00" }]);
    // One day's rows in another order than booked are not named: the day as a whole agrees.
    const sameDay = parseStatement("Date,Description,Amount,Balance\n2026-11-03,A,-10.00,80.00\n2026-11-03,B,-10.00,90.00\n2026-11-04,C,-5.00,75.00\n");
    expect(sameDay.balanceIssues).to.equal(undefined);
  });

  it("matches two balances that do not say which is which to their own dates: the rows lead from the opening to the closing", () => {
    // Read first as the closing balance, the opening one was reconciled against the period's end: a false alarm.
    const text = [
      "Kontostand am 31.10.2026;3.794,94",
      "Kontostand am 24.11.2026;5.911,54",
      "",
      "Buchungstag;Empfänger;Betrag",
      "03.11.2026;Müller;-900,00",
      "12.11.2026;Acme;3.150,00",
      "24.11.2026;Rewe;-133,40",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.opening).to.deep.equal({ date: "2026-10-31", amount: "3794.94" });
    expect(p.closing).to.deep.equal({ date: "2026-11-24", amount: "5911.54" });
    // Undated, with a period line: the first "Saldo" was the closing balance at the period's end, 2,116.60 off.
    const undated = parseStatement(["Zeitraum;01.11.2026 - 24.11.2026", "Saldo;3.794,94", "Saldo;5.911,54", "", ...text.split("\n").slice(3)].join("\n"));
    // The opening balance is the period's start: the day before its first day.
    expect(undated.opening).to.deep.equal({ date: "2026-10-31", amount: "3794.94" });
    expect(undated.closing).to.deep.equal({ date: "2026-11-24", amount: "5911.54" });
  });

  it("reads status words in the languages banks write them: Danish Venter, Italian Autorizzato, Spanish Programada are not booked; Udført, Contabilizzato are", () => {
    const notBooked = [
      "Venter",
      "Afventer",
      "Reserverat",
      "Autorizzato",
      "In attesa",
      "Programada",
      "Pendiente",
      "En attente",
      "Oczekująca",
      "Zaplanowana",
      "Rechazada",
    ];
    expect(notBooked.map(notBookedOf), "not booked").to.deep.equal([
      "pending",
      "pending",
      "pending",
      "pending",
      "pending",
      "scheduled",
      "pending",
      "pending",
      "pending",
      "scheduled",
      "declined",
    ]);
    expect(["Udført", "Bokförd", "Contabilizzato", "Contabilizado", "Zaksięgowana", "Geboekt", "Comptabilisé"].map(notBookedOf), "booked").to.deep.equal(
      new Array(7).fill(null),
    );
    // Danske Bank's export (Dato;Tekst;Beløb;Saldo;Status;Afstemt): the waiting card payment is shown, never booked.
    const danske = [
      '"Dato";"Tekst";"Beløb";"Saldo";"Status";"Afstemt"',
      '"03.11.2026";"Husleje";"-8.500,00";"9.935,00";"Udført";"Nej"',
      '"27.11.2026";"Irma";"-89,95";"";"Venter";"Nej"',
      "",
    ].join("\n");
    expect(parseStatement(danske).rows.map((r) => [r.payee, r.notBooked ?? "booked"])).to.deep.equal([
      ["Husleje", "booked"],
      ["Irma", "pending"],
    ]);
  });

  it("never reads a column of status words as the row's purpose or counterparty (a Spanish Estado column)", () => {
    const text = [
      "Fecha Operación;Fecha Valor;Concepto;Importe;Saldo;Estado",
      "29/11/2026;01/12/2026;TRANSFERENCIA PROGRAMADA A JUAN PEREZ;-150,00;;Programada",
      "21/11/2026;21/11/2026;RECIBO MOVISTAR;-35,90;4.884,30;Contabilizado",
      "14/11/2026;14/11/2026;COMPRA TARJ. CAFETERIA LA ESQUINA;-1,80;4.920,20;Contabilizado",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping?.description_column).to.equal(undefined);
    expect(p.rows.map((r) => [r.payee, r.description, r.notBooked ?? "booked"])).to.deep.equal([
      ["TRANSFERENCIA PROGRAMADA A JUAN PEREZ", null, "scheduled"],
      ["RECIBO MOVISTAR", null, "booked"],
      ["COMPRA TARJ. CAFETERIA LA ESQUINA", null, "booked"],
    ]);
  });

  it("reads a preamble's opening balance and a trailer's closing balance by their names in other languages (mBank's #Saldo początkowe and #Saldo końcowe)", () => {
    for (const [text, kind] of [
      ["#Saldo początkowe", "opening"],
      ["Saldo końcowe", "closing"],
      ["Eindsaldo", "closing"],
      ["Saldo di apertura", "opening"],
      ["Solde précédent", "opening"],
      ["Saldo de cierre", "closing"],
      ["Indgående saldo", "opening"],
    ] as const)
      expect(balanceKindOf(text), text).to.equal(kind);
    const text = [
      "#Klient;",
      "JAN KOWALSKI;",
      "#Za okres:;",
      "01.11.2026;30.11.2026;",
      "#Saldo początkowe;5 234,12 PLN;",
      "",
      "#Data operacji;#Opis operacji;#Tytuł;#Nadawca/Odbiorca;#Numer konta;#Kwota;#Saldo po operacji;",
      "2026-11-02;PRZELEW WYCHODZĄCY;CZYNSZ LISTOPAD;SPÓŁDZIELNIA;'123';-1 800,00;3 434,12;",
      "2026-11-05;ZAKUP PRZY UŻYCIU KARTY;ZAKUP;BIEDRONKA;'123';-89,23;3 344,89;",
      "",
      ";;;;#Saldo końcowe;3 344,89 PLN;",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.date, r.amount, r.error])).to.deep.equal([
      ["2026-11-02", "-1800.00", null],
      ["2026-11-05", "-89.23", null],
    ]);
    expect(p.opening?.amount).to.equal("5234.12");
    expect(p.closing?.amount).to.equal("3344.89");
  });

  it("reads a word where the booking day would be as the row's state: Nordea's Reserverat rows are pending, and the column is still the date", () => {
    const text = [
      "Bokföringsdag;Belopp;Avsändare;Mottagare;Namn;Rubrik;Saldo;Valuta",
      "Reserverat;-129,00;1234 56 78901;;Apotek Hjärtat;Kortköp;;SEK",
      "Reserverat;-64,50;1234 56 78901;;SL Access;Kortköp;;SEK",
      "2026/11/26;-399,00;1234 56 78901;;Telia Sverige;Autogiro;45162,00;SEK",
      "2026/11/25;31200,00;;1234 56 78901;Arbetsgivaren AB;Lön;45561,00;SEK",
      "2026/11/09;-45,00;1234 56 78901;;Pressbyrån;Kortköp;14361,00;SEK",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping?.date_column).to.equal("Bokföringsdag");
    expect(p.rows.map((r) => [r.date, r.amount, r.payee, r.notBooked ?? "booked", r.error])).to.deep.equal([
      [null, "-129.00", "Apotek Hjärtat", "pending", null],
      [null, "-64.50", "SL Access", "pending", null],
      ["2026-11-26", "-399.00", "Telia Sverige", "booked", null],
      ["2026-11-25", "31200.00", "Arbetsgivaren AB", "booked", null],
      ["2026-11-09", "-45.00", "Pressbyrån", "booked", null],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-26", amount: "45162.00" });
  });

  it("reads a ledger balance row as a stated balance and an available balance row as neither a transaction nor the balance (Banco BPM's Saldo contabile, Saldo disponibile)", () => {
    for (const [text, kind] of [
      ["Saldo contabile", "stated"],
      ["Solde comptable", "stated"],
      ["Ledger balance", "stated"],
      ["Bokfört saldo", "stated"],
      ["Saldo disponibile", "available"],
      ["Available balance", "available"],
      ["Konečný zůstatek", "closing"],
      ["Balance transfer fee", null],
    ] as const)
      expect(balanceKindOf(text), text).to.equal(kind);
    const text = [
      "Data contabile;Data valuta;Dare;Avere;Descrizione operazione",
      "25/11/2026;25/11/2026;55,00;;ADDEBITO SDD A2A ENERGIA",
      "14/11/2026;14/11/2026;1,80;;PAGAMENTO POS BAR DUOMO",
      "10/11/2026;10/11/2026;;2.210,00;BONIFICO DA BETA SPA STIPENDIO",
      "06/11/2026;06/11/2026;34,60;;PAGAMENTO POS ESSELUNGA MILANO",
      "30/11/2026;;;4.442,05;Saldo contabile",
      "30/11/2026;;;4.942,05;Saldo disponibile",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.mapping).to.include({ debit_column: "Dare", credit_column: "Avere" });
    expect(p.rows.map((r) => r.amount)).to.deep.equal(["-55.00", "-1.80", "2210.00", "-34.60"]);
    expect(p.closing).to.deep.equal({ date: "2026-11-30", amount: "4442.05" });
  });

  it("gives rows the state of the section heading above them (Schwab's Pending and Posted Transactions), and a total line is no row", () => {
    const text = [
      '"Transactions  for Checking account XXXXXX-1234 as of 11/30/2026 10:15:22 PM ET"',
      '"Date","Type","CheckNumber","Description","Withdrawal (-)","Deposit (+)","RunningBalance"',
      '"Pending Transactions"',
      '"11/28/2026","VISA","","VISA WHOLE FOODS #10234","$87.45","",""',
      '"Total Pending Check and other Credit(s)","","","","$87.45","",""',
      '"Posted Transactions"',
      '"11/20/2026","ACH","","ATT PAYMENT","$89.99","","$6,316.81"',
      '"11/12/2026","VISA","","VISA SIGHTGLASS COFFEE","$3.85","","$6,406.80"',
      '"11/07/2026","DEPOSIT","","ACME INC DIR DEP","","$3,980.00","$6,410.65"',
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.row, r.amount, r.notBooked ?? "booked", r.error])).to.deep.equal([
      [4, "-87.45", "pending", null],
      [7, "-89.99", "booked", null],
      [8, "-3.85", "booked", null],
      [9, "3980.00", "booked", null],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-20", amount: "6316.81" });
  });

  it("reads a heading before the header and the header repeated for the next section (Vorgemerkte Umsätze, Gebuchte Umsätze), and a balance named where the day would be", () => {
    const text = [
      "Umsätze Girokonto;Zeitraum: 01.11.2026 - 30.11.2026",
      "",
      "Vorgemerkte Umsätze",
      "Buchungstag;Wert;Umsatzart;Begünstigter / Auftraggeber;Verwendungszweck;Soll;Haben;Währung",
      "28.11.2026;28.11.2026;Kartenzahlung;Amazon EU;Bestellung 302;-34,99;;EUR",
      "",
      "Gebuchte Umsätze",
      "Buchungstag;Wert;Umsatzart;Begünstigter / Auftraggeber;Verwendungszweck;Soll;Haben;Währung",
      "18.11.2026;18.11.2026;Lastschrift;Bäckerei;Kartenzahlung;-3,20;;EUR",
      "12.11.2026;12.11.2026;Gutschrift;ACME GmbH;Gehalt;;3.150,00;EUR",
      "Kontostand;30.11.2026;;;;;6.018,29;EUR",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.rows.map((r) => [r.payee, r.amount, r.notBooked ?? "booked", r.error])).to.deep.equal([
      ["Amazon EU", "-34.99", "pending", null],
      ["Bäckerei", "-3.20", "booked", null],
      ["ACME GmbH", "3150.00", "booked", null],
    ]);
    expect(p.closing).to.deep.equal({ date: "2026-11-30", amount: "6018.29" });
  });

  it("dates balances that name no day by the period's own lines: the opening before Von, the closing at Bis (UBS)", () => {
    // The one date of "Von:" was read as the period's end: the closing balance dated 1 November, before
    // every row but none, warned of the statement's whole movement on correct money.
    const text = [
      "Von:;2026-11-01;",
      "Bis:;2026-11-30;",
      "Anfangssaldo:;3794.94;",
      "Schlusssaldo:;5911.54;",
      "",
      "Buchungsdatum;Belastung;Gutschrift;Saldo;Beschreibung1;",
      "2026-11-24;-133.40;;5911.54;Coop;",
      "2026-11-12;;3150.00;6044.94;Acme AG;",
      "2026-11-03;-900.00;;2894.94;Huber AG;",
      "",
    ].join("\n");
    const p = parseStatement(text);
    expect(p.opening).to.deep.equal({ date: "2026-10-31", amount: "3794.94" });
    expect(p.closing).to.deep.equal({ date: "2026-11-30", amount: "5911.54" });
    // A period on one line still ends at its last date.
    const oneLine = parseStatement(
      ["Von 01.11.2026 bis 24.11.2026", "Saldo;5.911,54", "", "Buchungstag;Empfänger;Betrag", "03.11.2026;Müller;-900,00", "12.11.2026;Acme;3.150,00", ""].join(
        "\n",
      ),
    );
    expect(oneLine.closing).to.deep.equal({ date: "2026-11-24", amount: "5911.54" });
  });
});
