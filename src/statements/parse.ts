/**
 * The one entry point: which format a statement is (when the caller does not say), and its rows. Detection
 * looks only at markers each format must have: OFX's header or <OFX>, CAMT's BkToCstmr… element, QIF's
 * "!Type:" line; anything else is tried as CSV, which refuses text that has no columns.
 */
import { invalidParams } from "../errors.js";
import { parseCamt } from "./camt.js";
import { parseCsv, type CsvHints, type Vocabulary } from "./csv.js";
import { assertDecoded } from "./encoding.js";
import { parseMt940 } from "./mt940.js";
import { parseOfx } from "./ofx.js";
import { parseQif } from "./qif.js";
import { unpasted } from "./pasted.js";
import type { CsvMapping, ParsedStatement, StatementFormat } from "./types.js";

export type { CsvMapping, ParsedStatement, StatementFormat } from "./types.js";
export type { CsvHints } from "./csv.js";

export function detectFormat(text: string): StatementFormat {
  const head = text
    .slice(0, 4096)
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (/^OFXHEADER\s*:/i.test(head) || /<\?OFX\b/i.test(head) || /^<OFX>/i.test(head)) return "ofx";
  if (/<(\w+:)?BkToCstmr(Stmt|AcctRpt)\b/.test(text.slice(0, 8192))) return "camt";
  if (/^!(Type|Account|Option)/i.test(head)) return "qif";
  if (isMt940(head)) return "mt940";
  if (/^<(\?xml|\w)/.test(head))
    throw invalidParams(
      "statement",
      "a bank statement (CSV, OFX/QFX, CAMT.052/053 or QIF)",
      "statement: this XML is neither OFX nor a CAMT.052/053 statement. Send the bank's statement export.",
    );
  return "csv";
}

/** MT940: a :20: reference and a :25: account among the first lines (after an optional SWIFT envelope). */
function isMt940(head: string): boolean {
  const lines = head.split("\n", 12).map((l) => l.trim());
  return lines.some((l) => l.startsWith(":20:")) && lines.some((l) => l.startsWith(":25:"));
}

export function parseStatement(
  text: string,
  format?: StatementFormat,
  mapping: Partial<CsvMapping> = {},
  hints: CsvHints = {},
  vocabulary?: Vocabulary,
): ParsedStatement {
  assertDecoded(text);
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") throw invalidParams("statement", "the text of a bank statement", "statement: the statement is empty.");
  switch (format ?? detectFormat(body)) {
    case "ofx":
      return parseOfx(body);
    case "camt":
      return parseCamt(body);
    case "qif":
      return parseQif(body, { date_order: mapping.date_order, decimal: mapping.decimal });
    case "csv":
      return parseCsv(unpasted(body), mapping, hints, vocabulary);
    case "mt940":
      return parseMt940(body);
  }
}
