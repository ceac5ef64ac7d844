/**
 * ISO 20022 bank-to-customer statements: CAMT.053 (end of day, BkToCstmrStmt/Stmt) and CAMT.052 (intraday,
 * BkToCstmrAcctRpt/Rpt), any version (.02–.08: namespace prefixes are stripped). Amounts are unsigned with
 * CdtDbtInd (CRDT in, DBIT out). A row's id is AcctSvcrRef, else NtryRef, else the first EndToEndId that is
 * not NOTPROVIDED. The payee is the other party: the creditor of a debit, the debtor of a credit. Only
 * booked entries (Sts BOOK) are rows to import; pending ones are named as such.
 */
import { invalidParams } from "../errors.js";
import { parseDate } from "./dates.js";
import { parseDecimal } from "./numbers.js";
import { child, children, findAll, text, type Node } from "./tree.js";
import { emptyRow, type ParsedStatement, type StatedBalance, type StatementEntry } from "./types.js";
import { parseXml } from "./xml.js";

const isoDay = (node: Node | undefined): string | null => {
  const value = text(node, "Dt") ?? text(node, "DtTm");
  return value === null ? null : parseDate(value.slice(0, 10), "iso");
};

function signed(node: Node | undefined): string | null {
  const amount = parseDecimal(text(node, "Amt") ?? "", ".");
  if (amount === null) return null;
  const direction = text(node, "CdtDbtInd");
  return direction === "DBIT" && amount !== "0" ? `-${amount.replace(/^-/, "")}` : amount;
}

const partyName = (party: Node | undefined): string | null => text(party, "Nm") ?? text(party, "Pty", "Nm");

export function parseCamt(input: string): ParsedStatement {
  const tree = parseXml(input, "CAMT");
  const statement = findAll(tree, "Stmt")[0] ?? findAll(tree, "Rpt")[0];
  if (statement === undefined)
    throw invalidParams("statement", "a CAMT.053 Stmt or CAMT.052 Rpt", "statement: this XML holds no CAMT.053 statement (Stmt) or CAMT.052 report (Rpt).");
  const currency = text(statement, "Acct", "Ccy")?.toUpperCase() ?? null;
  let opening: StatedBalance | null = null;
  let closing: StatedBalance | null = null;
  for (const bal of children(statement, "Bal")) {
    const code = text(bal, "Tp", "CdOrPrtry", "Cd");
    const amount = signed(bal);
    const date = isoDay(child(bal, "Dt"));
    if (amount === null || date === null) continue;
    if (code === "OPBD" || code === "PRCD") opening = { date, amount };
    if (code === "CLBD" || code === "ITBD") closing = { date, amount };
  }
  const rows = children(statement, "Ntry").map((entry, i) => readEntry(entry, i + 1));
  return { format: "camt", rows, currency, opening, closing, mapping: null };
}

function readEntry(entry: Node, index: number): StatementEntry {
  const row = emptyRow(index);
  // Where ISO 20022 puts them (Ntry/NtryDtls/TxDtls, TxDtls/RmtInf/Ustrd), else anywhere below: a walk of
  // every entry's whole subtree was a tenth of a 5,000-entry preview.
  const details = child(entry, "NtryDtls", "TxDtls") ?? findAll(entry, "TxDtls")[0];
  const debit = text(entry, "CdtDbtInd") === "DBIT";
  const parties = child(details, "RltdPties");
  row.payee = debit
    ? (partyName(child(parties, "Cdtr")) ?? partyName(child(parties, "UltmtCdtr")))
    : (partyName(child(parties, "Dbtr")) ?? partyName(child(parties, "UltmtDbtr")));
  const remittance = (children(child(details, "RmtInf"), "Ustrd").length > 0 ? children(child(details, "RmtInf"), "Ustrd") : findAll(details, "Ustrd"))
    .map((u) => (typeof u === "string" ? u : text(u)))
    .filter((u): u is string => !!u);
  row.description = remittance.length > 0 ? remittance.join(" ") : text(entry, "AddtlNtryInf");
  if (row.payee === null && row.description !== null) [row.payee, row.description] = [row.description, null];
  const endToEnd = text(details, "Refs", "EndToEndId");
  row.bankId =
    text(entry, "AcctSvcrRef") ?? text(entry, "NtryRef") ?? (endToEnd && endToEnd !== "NOTPROVIDED" ? endToEnd : null) ?? text(details, "Refs", "TxId");
  const amt = child(entry, "Amt");
  row.currency = typeof amt === "object" && typeof amt["@Ccy"] === "string" ? amt["@Ccy"].toUpperCase() : null;
  const status = text(entry, "Sts") ?? text(entry, "Sts", "Cd");
  row.date = isoDay(child(entry, "BookgDt")) ?? isoDay(child(entry, "ValDt"));
  if (row.date === null) {
    row.error = { field: "date", reason: "no BookgDt or ValDt" };
    return row;
  }
  row.amount = signed(entry);
  if (row.amount === null) row.error = { field: "amount", reason: `Amt ${JSON.stringify((text(entry, "Amt") ?? "").slice(0, 30))} is not a number` };
  // An entry the bank has not booked (PDNG, INFO, FUTR) is shown and counted, never imported (issue 48).
  else if (status !== null && status !== "BOOK")
    row.notBooked = status === "FUTR" ? "scheduled" : status === "PDNG" ? "pending" : status.slice(0, 10).toLowerCase();
  return row;
}
