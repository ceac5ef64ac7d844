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

export function girokontoCsv(rows: number, lastDay = "2026-11-24"): string {
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
    const payee = PAYEES[Math.floor(rnd() * PAYEES.length)]!;
    const income = payee === "Muster AG";
    const cents = Math.floor(rnd() * (income ? 400000 : 15000)) + 100;
    const amount = `${income ? "" : "-"}${Math.floor(cents / 100).toLocaleString("de-DE")},${String(cents % 100).padStart(2, "0")}`;
    const ref = `${payee.toUpperCase().slice(0, 10)} SAGT DANKE ${String(10000000 + i)}`;
    lines.push(`"${d}";"${d}";"${income ? "Gutschrift" : "Lastschrift"}";"${payee}";"${ref}";"DE12500105170648489890";"50010517";"${amount}";"";"";"";`);
  }
  return `${lines.join("\r\n")}\r\n`;
}
