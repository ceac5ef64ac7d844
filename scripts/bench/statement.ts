/**
 * A synthetic bank statement for the import benchmark and the body-limit test: a German Girokonto CSV
 * (semicolons, decimal commas, DD.MM.YYYY dates, a preamble, quoted fields) of `rows` rows over the
 * months before `lastDay`, with payees, references and IBANs as wide as real exports. Deterministic.
 */
const PAYEES = [
  "REWE Markt GmbH",
  "Lidl Dienstleistung GmbH",
  "ALDI SUED",
  "EDEKA Center",
  "Deutsche Bahn",
  "Stadtwerke München",
  "Bäckerei Schmidt",
  "Amazon EU S.a.r.l.",
  "Muster AG",
  "Hausverwaltung Nord",
];

/**
 * `distinct` (import-bench's statements of distinct payees): row i's payee and amount in cents instead of
 * the ten payees above and a random amount, so that no row of one statement is a possible duplicate of another's.
 */
export function girokontoCsv(rows: number, lastDay = "2026-11-24", distinct?: { payee(i: number): string; cents(i: number): number }): string {
  const lines = ['"Kontonummer:";"DE02 1203 0000 0000 2020 51";', '"Von:";"01.01.2025";', '"Bis:";"24.11.2026";', ""];
  lines.push(
    '"Buchungstag";"Wertstellung";"Buchungstext";"Auftraggeber / Begünstigter";"Verwendungszweck";"Kontonummer";"BLZ";"Betrag (EUR)";"Gläubiger-ID";"Mandatsreferenz";"Kundenreferenz";',
  );
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < rows; i++) {
    const day = new Date(end - Math.floor((i * 540) / rows) * 86_400_000);
    const d = `${String(day.getUTCDate()).padStart(2, "0")}.${String(day.getUTCMonth() + 1).padStart(2, "0")}.${day.getUTCFullYear()}`;
    const listed = PAYEES[Math.floor(rnd() * PAYEES.length)]!;
    const payee = distinct ? distinct.payee(i) : listed;
    const income = payee === "Muster AG";
    const random = Math.floor(rnd() * (income ? 400000 : 15000)) + 100;
    const cents = distinct ? distinct.cents(i) : random;
    const amount = `${income ? "" : "-"}${Math.floor(cents / 100).toLocaleString("de-DE")},${String(cents % 100).padStart(2, "0")}`;
    const ref = `${payee.toUpperCase().slice(0, 10)} SAGT DANKE ${String(10000000 + i)}`;
    lines.push(`"${d}";"${d}";"${income ? "Gutschrift" : "Lastschrift"}";"${payee}";"${ref}";"DE12500105170648489890";"50010517";"${amount}";"";"";"";`);
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** The same deterministic rows as rows of [ISO date, signed amount with a point, payee, purpose]. */
function syntheticRows(rows: number, lastDay: string): [string, string, string, string][] {
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: [string, string, string, string][] = [];
  for (let i = 0; i < rows; i++) {
    const day = new Date(end - Math.floor(((rows - 1 - i) * 540) / rows) * 86_400_000).toISOString().slice(0, 10);
    const payee = PAYEES[Math.floor(rnd() * PAYEES.length)]!;
    const income = payee === "Muster AG";
    const cents = Math.floor(rnd() * (income ? 400000 : 15000)) + 100;
    const amount = `${income ? "" : "-"}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    out.push([day, amount, payee, `${payee.toUpperCase().slice(0, 10)} SAGT DANKE ${String(10000000 + i)}`]);
  }
  return out;
}

/** A German bank's MT940 export of `rows` entries (the ?NN subfields of :86:), oldest first. */
export function mt940Statement(rows: number, currency = "EUR", lastDay = "2026-11-24"): string {
  const yymmdd = (iso: string) => iso.slice(2).replaceAll("-", "");
  const lines = [":20:STARTUMSE", ":25:50010517/0648489890", ":28C:00001/001", `:60F:C${yymmdd("2025-06-01")}${currency}1000000,00`];
  for (const [date, amount, payee, purpose] of syntheticRows(rows, lastDay)) {
    const out = amount.startsWith("-");
    const value = amount.replace("-", "").replace(".", ",");
    lines.push(`:61:${yymmdd(date)}${date.slice(5, 7)}${date.slice(8, 10)}${out ? "D" : "C"}R${value}N${out ? "DDT" : "TRF"}NONREF`);
    lines.push(
      `:86:${out ? "105" : "166"}?00${out ? "FOLGELASTSCHRIFT" : "GUTSCHRIFT"}?20SVWZ+${purpose.slice(0, 22)}?21${purpose.slice(22)}?30INGDDEFFXXX?31DE12500105170648489890?32${payee}`,
    );
  }
  lines.push(`:62F:C${yymmdd(lastDay)}${currency}1000000,00`, "-");
  return `${lines.join("\r\n")}\r\n`;
}

/** A CAMT.053 statement of `rows` booked entries, as German banks send them. */
export function camtStatement(rows: number, currency = "EUR", lastDay = "2026-11-24"): string {
  const entries = syntheticRows(rows, lastDay).map(([date, amount, payee, purpose], i) => {
    const out = amount.startsWith("-");
    const party = out ? `<Cdtr><Pty><Nm>${payee}</Nm></Pty></Cdtr>` : `<Dbtr><Pty><Nm>${payee}</Nm></Pty></Dbtr>`;
    return `<Ntry><Amt Ccy="${currency}">${amount.replace("-", "")}</Amt><CdtDbtInd>${out ? "DBIT" : "CRDT"}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${date}</Dt></BookgDt><AcctSvcrRef>${String(2026000000000 + i)}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties>${party}</RltdPties><RmtInf><Ustrd>${purpose}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>${currency}</Ccy></Acct>\n${entries.join("\n")}\n</Stmt></BkToCstmrStmt></Document>\n`;
}
