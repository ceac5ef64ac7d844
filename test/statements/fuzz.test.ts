/**
 * Property tests of the parsers we wrote ourselves (OFX 1.x SGML, QIF, MT940) and of the amount and date readers,
 * with fast-check: whatever the text, they end and either give rows or refuse with invalid_params (never
 * another error); and a statement rendered from generated transactions reads back as those transactions.
 */
import { expect } from "chai";
import fc from "fast-check";
import { AppError } from "../../src/errors.js";
import { parseDate } from "../../src/statements/dates.js";
import { parseDecimal } from "../../src/statements/numbers.js";
import { parseStatement } from "../../src/statements/parse.js";

function readsOrRefuses(text: string, format?: "ofx" | "qif" | "csv" | "mt940"): void {
  try {
    const s = parseStatement(text, format);
    for (const r of s.rows) {
      expect(r.row).to.be.a("number");
      if (r.amount !== null) expect(r.amount).to.match(/^-?\d+(\.\d+)?$/);
      if (r.date !== null) expect(r.date).to.match(/^\d{4}-\d{2}-\d{2}$/);
    }
  } catch (err) {
    if (!(err instanceof AppError) || err.errorName !== "invalid_params") throw err;
  }
}

const day = fc
  .date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const cents = fc.integer({ min: -99_999_999, max: 99_999_999 }).filter((n) => n !== 0);
const decimal = (n: number) => `${n < 0 ? "-" : ""}${Math.floor(Math.abs(n) / 100)}.${String(Math.abs(n) % 100).padStart(2, "0")}`;
const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .&'*#-]{0,30}[A-Za-z0-9]$/);
const txns = fc.array(fc.record({ date: day, cents, payee: name, id: fc.stringMatching(/^[A-Za-z0-9]{1,20}$/) }), { minLength: 1, maxLength: 20 });

const escapeSgml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("statement parsers, property tests", function () {
  this.timeout(60_000);

  it("OFX 1.x SGML: any text ends in rows or invalid_params", () => {
    const tags = fc.constantFrom(
      "<OFX>",
      "<STMTRS>",
      "</STMTRS>",
      "<BANKTRANLIST>",
      "</BANKTRANLIST>",
      "<STMTTRN>",
      "</STMTTRN>",
      "<TRNAMT>",
      "<DTPOSTED>",
      "<FITID>",
      "<NAME>",
      "<CURDEF>",
      "<LEDGERBAL>",
      "<BALAMT>",
      "</OFX>",
      "<",
      ">",
      "&amp;",
      "&",
    );
    const body = fc
      .array(fc.oneof(tags, fc.string({ maxLength: 12 })), { maxLength: 80 })
      .map((parts) => `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>${parts.join("")}`);
    fc.assert(
      fc.property(body, (text) => readsOrRefuses(text, "ofx")),
      { numRuns: 400 },
    );
  });

  it("OFX 1.x SGML: generated transactions read back exactly", () => {
    fc.assert(
      fc.property(txns, (list) => {
        const unique = list.map((t, i) => ({ ...t, id: `${t.id}-${i}` }));
        const trns = unique
          .map(
            (t) =>
              `<STMTTRN>\n<TRNTYPE>OTHER\n<DTPOSTED>${t.date.replace(/-/g, "")}\n<TRNAMT>${decimal(t.cents)}\n<FITID>${t.id}\n<NAME>${escapeSgml(t.payee)}\n</STMTTRN>`,
          )
          .join("\n");
        const text = `OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX>\n<BANKMSGSRSV1>\n<STMTTRNRS>\n<STMTRS>\n<CURDEF>EUR\n<BANKTRANLIST>\n${trns}\n</BANKTRANLIST>\n</STMTRS>\n</STMTTRNRS>\n</BANKMSGSRSV1>\n</OFX>\n`;
        const s = parseStatement(text);
        expect(s.rows.map((r) => [r.date, r.amount, r.payee, r.bankId])).to.deep.equal(unique.map((t) => [t.date, decimal(t.cents), t.payee, t.id]));
      }),
      { numRuns: 200 },
    );
  });

  it("QIF: any text ends in rows or invalid_params", () => {
    const line = fc.oneof(fc.constantFrom("!Type:Bank", "!Type:Invst", "^", "D", "T", "P", "M", "!Account"), fc.string({ maxLength: 20 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => readsOrRefuses(`!Type:Bank\n${lines.join("\n")}`, "qif")),
      { numRuns: 400 },
    );
  });

  it("QIF: generated transactions read back exactly, month-first with apostrophe years", () => {
    fc.assert(
      fc.property(
        txns.map((l) => l.filter((t) => t.date >= "2000-01-01")),
        (list) => {
          const text = `!Type:Bank\n${list.map((t) => `D${t.date.slice(5, 7)}/${t.date.slice(8, 10)}'${t.date.slice(2, 4)}\nT${decimal(t.cents)}\nP${t.payee}\n^`).join("\n")}\n`;
          const s = parseStatement(text, undefined, { date_order: "month_first" });
          expect(s.rows.map((r) => [r.date, r.amount, r.payee])).to.deep.equal(list.map((t) => [t.date, decimal(t.cents), t.payee]));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("MT940: any text ends in rows or invalid_params", () => {
    const line = fc.oneof(
      fc.constantFrom(":20:X", ":25:DE02", ":60F:C261101EUR1,00", ":61:", ":61:2611241124DR", ":86:", "?20", "?32", "/NAME/", "//", "-", ":62F:D", "C", "RD"),
      fc.string({ maxLength: 24 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => readsOrRefuses(`:20:STARTUMSE\n:25:X\n${lines.join("\n")}`, "mt940")),
      { numRuns: 400 },
    );
  });

  it("MT940: generated transactions read back exactly", () => {
    const yymmdd = (d: string) => d.slice(2).replaceAll("-", "");
    fc.assert(
      fc.property(
        txns.map((l) => l.filter((t) => t.date >= "2000-01-01")),
        (list) => {
          const entries = list.map((t) => {
            const amount = decimal(Math.abs(t.cents)).replace(".", ",");
            return `:61:${yymmdd(t.date)}${t.cents < 0 ? "D" : "C"}R${amount}NTRFNONREF//${t.id}\n:86:166?00GUTSCHRIFT?20SVWZ+x?32${t.payee}`;
          });
          const text = `:20:STARTUMSE\n:25:X\n:60F:C000101EUR1,00\n${entries.join("\n")}\n:62F:C000101EUR1,00\n-\n`;
          const s = parseStatement(text);
          expect(s.rows.map((r) => [r.date, r.amount, r.payee, r.bankId])).to.deep.equal(list.map((t) => [t.date, decimal(t.cents), t.payee, t.id]));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("CSV: any text ends in rows or invalid_params", () => {
    const cell = fc.oneof(fc.constantFrom('"', ";", ",", "\n", "\t", "24.11.2026", "-12,50", "Datum", "Betrag"), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 60 }), (cells) => readsOrRefuses(cells.join(""), "csv")),
      { numRuns: 300 },
    );
  });

  it("amounts: a number written with grouping and either mark reads back as itself", () => {
    fc.assert(
      fc.property(cents, fc.constantFrom(",", "."), (n, mark) => {
        const [whole, frac] = decimal(Math.abs(n)).split(".");
        const group = mark === "," ? "." : ",";
        const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, group);
        expect(parseDecimal(`${n < 0 ? "-" : ""}${grouped}${mark}${frac}`, mark)).to.equal(decimal(n));
      }),
      { numRuns: 500 },
    );
  });

  it("dates: every calendar day reads back in each order", () => {
    fc.assert(
      fc.property(day, (d) => {
        const [y, m, dd] = d.split("-");
        expect(parseDate(`${dd}.${m}.${y}`, "day_first")).to.equal(d);
        expect(parseDate(`${m}/${dd}/${y}`, "month_first")).to.equal(d);
        expect(parseDate(d, "iso")).to.equal(d);
      }),
      { numRuns: 500 },
    );
  });
});
