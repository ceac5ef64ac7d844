/**
 * OFX and QFX statements: 1.x (SGML after "OFXHEADER:100" lines, read by ofx-sgml.ts) and 2.x (XML, read
 * by fast-xml-parser). Bank and credit-card statements alike (STMTRS, CCSTMTRS). A row's id is FITID, its
 * amount TRNAMT (signed), its date DTPOSTED; LEDGERBAL is the closing balance.
 */
import { invalidParams } from "../errors.js";
import { parseDate } from "./dates.js";
import { assertKnownEncoding } from "./encoding.js";
import { parseDecimal } from "./numbers.js";
import { parseSgml } from "./ofx-sgml.js";
import { child, findAll, text, type Node } from "./tree.js";
import { emptyRow, type ParsedStatement, type StatedBalance, type StatementEntry } from "./types.js";
import { parseXml } from "./xml.js";

const ofxDate = (value: string | null): string | null => (value === null ? null : parseDate(value.slice(0, 8), "iso"));

/** OFX 1.x's "NAME:value" header lines, the first of each name; one pass over the lines (issue 41: no pattern retried at every line). */
function headerLines(head: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of head.split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).toUpperCase();
    if (!out.has(name)) out.set(name, line.slice(colon + 1).trim());
  }
  return out;
}

/**
 * The head of an OFX 2.x file without its `<?OFX …?>` declarations, which the XML validator does not take.
 * Each declaration ends at its first ">"; found with indexOf from left to right, so the work is linear
 * however many unclosed "<?OFX" a hostile head holds.
 */
function withoutOfxDeclarations(head: string): string {
  const opener = /<\?OFX/gi;
  let out = "";
  let kept = 0;
  for (let m = opener.exec(head); m !== null; m = opener.exec(head)) {
    const end = head.indexOf(">", m.index);
    if (end < 0) break;
    opener.lastIndex = end + 1;
    if (head[end - 1] !== "?") continue;
    out += head.slice(kept, m.index);
    kept = end + 1;
  }
  return out + head.slice(kept);
}

export function parseOfx(input: string): ParsedStatement {
  const start = input.search(/<OFX>/i);
  if (start < 0) throw invalidParams("statement", "an OFX file with an <OFX> element", "statement: this OFX file has no <OFX> element. Send the whole file.");
  const head = input.slice(0, start);
  let tree: Node;
  if (/<\?xml/i.test(head)) {
    assertKnownEncoding(/encoding\s*=\s*["']([^"']+)/i.exec(head)?.[1] ?? null, "its XML declaration");
    tree = parseXml(withoutOfxDeclarations(head) + input.slice(start), "OFX");
  } else {
    const headers = headerLines(head);
    assertKnownEncoding(headers.get("ENCODING") ?? null, "its ENCODING header");
    assertKnownEncoding(headers.get("CHARSET") ?? null, "its CHARSET header");
    tree = parseSgml(input.slice(start));
  }
  const statement = findAll(tree, "STMTRS")[0] ?? findAll(tree, "CCSTMTRS")[0];
  if (statement === undefined)
    throw invalidParams(
      "statement",
      "an OFX bank or credit card statement (STMTRS or CCSTMTRS)",
      "statement: this OFX file holds no bank or credit card statement (STMTRS or CCSTMTRS).",
    );
  const currency = text(statement, "CURDEF")?.toUpperCase() ?? null;
  const rows: StatementEntry[] = findAll(child(statement, "BANKTRANLIST"), "STMTTRN").map((trn, i) => readTransaction(trn, i + 1));
  const balance = child(statement, "LEDGERBAL");
  const amount = parseDecimal(text(balance, "BALAMT") ?? "", ".");
  const date = ofxDate(text(balance, "DTASOF"));
  const closing: StatedBalance | null = amount !== null && date !== null ? { date, amount } : null;
  return { format: "ofx", rows, currency, opening: null, closing, mapping: null };
}

function readTransaction(trn: Node, index: number): StatementEntry {
  const row = emptyRow(index);
  row.bankId = text(trn, "FITID");
  row.payee = text(trn, "NAME") ?? text(trn, "PAYEE", "NAME");
  row.description = text(trn, "MEMO");
  row.currency = text(trn, "CURRENCY", "CURSYM")?.toUpperCase() ?? text(trn, "ORIGCURRENCY", "CURSYM")?.toUpperCase() ?? null;
  const dateText = text(trn, "DTPOSTED");
  row.date = ofxDate(dateText);
  if (row.date === null) {
    row.error = { field: "date", reason: dateText === null ? "no DTPOSTED" : `DTPOSTED ${JSON.stringify(dateText.slice(0, 30))} is not a date` };
    return row;
  }
  const amountText = text(trn, "TRNAMT");
  // OFX allows a decimal comma in some locales; the point is the norm.
  row.amount = amountText === null ? null : (parseDecimal(amountText, ".") ?? parseDecimal(amountText, ","));
  if (row.amount === null)
    row.error = { field: "amount", reason: amountText === null ? "no TRNAMT" : `TRNAMT ${JSON.stringify(amountText.slice(0, 30))} is not a number` };
  return row;
}
