/**
 * Hostile statements of each format, any size: the shapes that made a parser's work grow faster than its
 * input (issue 41), padded to `chars` characters. Used by test/statements/bounded-work.test.ts (each at the
 * 4,000,000 allowed) and `npm run bench -- statements` (the time at several sizes).
 */
const fill = (head: string, unit: string, tail: string, chars: number): string =>
  head + unit.repeat(Math.max(0, Math.floor((chars - head.length - tail.length) / unit.length))) + tail;

const OFX_HEAD = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nENCODING:USASCII\nCHARSET:1252\n\n";
const OFX_ROW = (amount: string) =>
  `<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261101<TRNAMT>${amount}<FITID>1<NAME>Shop</STMTTRN>`;
const OFX_TAIL = "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>";
const CAMT_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Acct><Ccy>EUR</Ccy></Acct>';
const CAMT_TAIL = "</Stmt></BkToCstmrStmt></Document>";
const CAMT_ENTRY = '<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-01</Dt></BookgDt><NtryRef>1</NtryRef></Ntry>';

export const hostileStatements: Record<string, (chars: number) => string> = {
  // "<A" again and again with no ">": the old tag pattern scanned to the end from every "<".
  "OFX 1.x, unclosed tags": (n) => fill(`${OFX_HEAD}<OFX>`, "<A", "", n),
  // Closing tags that match nothing open: the old parser walked the whole stack for each.
  "OFX 1.x, stray closing tags": (n) => fill(`${OFX_HEAD}<OFX>${"<A>".repeat(90)}`, "</B>", "", n),
  // A head of empty lines: /^\s*ENCODING:/m was retried from every line.
  "OFX 1.x, blank header lines": (n) => fill("OFXHEADER:100\n", "\n", "<OFX></OFX>", n),
  // An amount padded with spaces: the trailing currency pattern was retried from every space.
  "OFX 1.x, spaced amount": (n) => fill(`${OFX_HEAD}${OFX_ROW("1")}`, " ", `1 x${OFX_TAIL}`, n),
  // Unclosed "<?OFX" declarations before <OFX>: /<\?OFX[^>]*\?>/ scanned to the end from each.
  "OFX 2.x, unclosed declarations": (n) => fill('<?xml version="1.0"?>', "<?OFX", "<OFX></OFX>", n),
  // Elements nested deeper than any bank's file.
  "OFX 2.x, deep nesting": (n) => {
    const depth = Math.floor((n - 60) / 7);
    return `<?xml version="1.0"?><?OFX OFXHEADER="200"?><OFX>${"<A>".repeat(depth)}${"</A>".repeat(depth)}</OFX>`;
  },
  // Blank lines and no !Type: line: /^\s*!Type:/im was retried from every line.
  "QIF, blank lines": (n) => fill("!Account\n", "\n", "x", n),
  "QIF, spaced amount": (n) => fill("!Type:Bank\nD11/01/2026\nT1", " ", "1 x\n^\n", n),
  "CAMT, many entries": (n) => fill(CAMT_HEAD, CAMT_ENTRY, CAMT_TAIL, n),
  "CAMT, unclosed attributes": (n) => fill(CAMT_HEAD, '<Ntry a="', "", n),
  "CAMT, deep nesting": (n) => {
    const depth = Math.floor((n - CAMT_HEAD.length - CAMT_TAIL.length) / 13);
    return `${CAMT_HEAD}${"<Ntry>".repeat(depth)}${"</Ntry>".repeat(depth)}${CAMT_TAIL}`;
  },
  "CSV, one long cell": (n) => fill("Date,Amount,Payee\n2026-11-01,1", " ", "1 x,Shop\n", n),
  "CSV, unclosed quotes": (n) => fill("Date,Amount,Payee\n", '2026-11-01,1,"', "", n),
};

const day = (i: number) => `2026-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`;

/** The largest allowed statement of each format made of ordinary rows (as many as `chars` holds): the most work a well-formed file asks for. */
export const largeStatements: Record<string, (chars: number) => string> = {
  OFX: (n) =>
    fill(
      `${OFX_HEAD}<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKTRANLIST>`,
      "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261101<TRNAMT>-12.50<FITID>F<NAME>Corner shop</STMTTRN>\n",
      OFX_TAIL,
      n,
    ),
  CAMT: (n) => fill(CAMT_HEAD, CAMT_ENTRY, CAMT_TAIL, n),
  QIF: (n) => fill("!Type:Bank\n", "D11/01/2026\nT-12.50\nPCorner shop\n^\n", "", n),
  CSV: (n) => {
    let i = 0;
    const rows: string[] = ["Date,Amount,Payee"];
    let size = rows[0]!.length + 1;
    while (size < n - 40) {
      const row = `${day(i)},-${(i % 900) + 1}.50,Shop ${i % 5000}`;
      rows.push(row);
      size += row.length + 1;
      i++;
    }
    return rows.join("\n") + "\n";
  },
};
