/**
 * finance-mcp import checks every row with the write tools' rules: a file with a bad date, an unknown
 * currency or direction, an id outside the id pattern, a positive expense, a forged audit entry or a
 * column no export has imports nothing; the error names the file, the row and the column of each
 * problem; the CLI exits 2 without SQL or a stack; and the account still answers the list tools.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { exportAccount, type AccountExport } from "../../src/portability/export.js";
import { ImportError, importAccount, importFile } from "../../src/portability/import.js";
import { COLUMNS } from "../../src/portability/rules.js";
import { ACCOUNT_TABLES } from "../../src/portability/tables.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

type Rows = Record<string, unknown>[];
const copy = (data: AccountExport) => JSON.parse(JSON.stringify(data)) as AccountExport;
const rows = (data: AccountExport, section: string) => data[section] as Rows;

describe(`import checks every row (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let original: AccountExport;
  let dir: string;
  before(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "fmcp-import-"));
    const alex = await server.createUser({ currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller);
    original = JSON.parse(JSON.stringify(await exportAccount(server.db, alex.id))) as AccountExport;
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  /** The account is empty and every list tool answers (no internal_error). */
  async function untouchedAndServing(user: TestUser) {
    for (const spec of ACCOUNT_TABLES) expect(await server.db(spec.table).where({ user_id: user.id }), spec.table).to.have.length(0);
    expect((await server.call("list_wallets", {}, user.token)).wallets).to.deep.equal([]);
    expect((await server.call("list_transactions", {}, user.token)).transactions).to.deep.equal([]);
    expect((await server.call("list_categories", {}, user.token)).categories).to.deep.equal([]);
  }

  it("has a rule for every column of every table it imports, and no rule for a column that does not exist", async () => {
    for (const spec of ACCOUNT_TABLES) {
      const inDb = Object.keys(await server.db(spec.table).columnInfo()).filter((c) => c !== "user_id" && c !== "tags_key" && !spec.omit.includes(c));
      // A transaction's tags and split parts are lists on its row (transaction_tags, transaction_parts).
      const ruled = Object.keys(COLUMNS[spec.table]!).filter((c) => spec.table !== "transactions" || (c !== "tags" && c !== "parts"));
      expect(ruled.sort(), spec.table).to.deep.equal(inDb.sort());
    }
  });

  const expense = (d: AccountExport) => rows(d, "transactions").find((t) => t.direction === "expense")!;
  const cases: [string, (d: AccountExport) => void, RegExp][] = [
    ["a bad date", (d) => (expense(d).date = "2026-02-30"), /transactions\[\d+\]\.date: expected a date YYYY-MM-DD/],
    ["an unknown currency", (d) => (rows(d, "wallets")[0]!.currency = "XXY"), /wallets\[0\]\.currency: expected an ISO 4217 currency/],
    ["an unknown direction", (d) => (expense(d).direction = "gift"), /transactions\[\d+\]\.direction: expected one of expense, income, transfer/],
    ["an id outside the id pattern", (d) => (rows(d, "wallets")[0]!.id = "wal_../../x"), /wallets\[0\]\.id: expected an id wal_/],
    ["a positive expense", (d) => (expense(d).amount_minor = 1250), /transactions\[\d+\]\.amount_minor: expected a negative number/],
    ["an amount past the bound", (d) => (expense(d).amount_minor = "-99999999999999999999"), /amount_minor: expected a whole number of minor units/],
    ["a forged audit entry", (d) => (rows(d, "audit_log")[0]!.tool = "grant_admin"), /audit_log\[0\]\.tool: expected one of/],
    [
      "an audit entry with a token of the old account",
      (d) => (rows(d, "audit_log")[0]!.token_id = "tok_x"),
      /audit_log\[0\]\.token_id: not a column of an export/,
    ],
    ["a wallet not in the file", (d) => (expense(d).wallet_id = "wal_AAAAAAAAAAAAAAAAAAAAAA"), /wallet_id: expected the id of a wallet listed earlier/],
    [
      "a currency other than the wallet's",
      (d) => (expense(d).currency = expense(d).currency === "USD" ? "EUR" : "USD"),
      /currency: expected [A-Z]{3}, the currency of its wallet/,
    ],
    ["NUL in a payee", (d) => (expense(d).payee = "Shop\u0000"), /transactions\[\d+\]\.payee: expected text without NUL/],
    ["a budget list that is not JSON", (d) => (rows(d, "budgets")[0]!.categories = "[oops"), /budgets\[0\]\.categories: expected a JSON list/],
    [
      "a bill schedule no tool takes",
      (d) => (rows(d, "bill_reminders")[0]!.schedule = '{"frequency":"hourly"}'),
      /bill_reminders\[0\]\.schedule: expected JSON text of a schedule/,
    ],
  ];
  for (const [what, mutate, message] of cases) {
    it(`refuses ${what}, naming the row and column, and imports nothing`, async () => {
      const user = await server.createUser();
      const bad = copy(original);
      mutate(bad);
      let err: unknown;
      try {
        await importAccount(server.db, user.id, bad, "alex.json");
      } catch (e) {
        err = e;
      }
      expect(err, what).to.be.instanceOf(ImportError);
      expect((err as Error).message).to.match(/^alex\.json: \d+ problems?/);
      expect((err as Error).message).to.match(message);
      await untouchedAndServing(user);
    });
  }

  it("the CLI names the file, row and column of each problem, exits 2, prints no SQL or stack, and the account still serves", async () => {
    const user = await server.createUser({ email: "bad-file@example.test" });
    const bad = copy(original);
    expense(bad).date = "not a date";
    rows(bad, "wallets")[1]!.type = "vault";
    rows(bad, "audit_log")[2]!.idempotency_key = "'); DROP TABLE users; --";
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify(bad));
    const run = await cli(["import", "--email", "bad-file@example.test", file], { DATABASE_URL: server.database.url });
    expect(run.code, run.stderr).to.equal(2);
    expect(run.stdout).to.equal("");
    expect(run.stderr).to.include(`finance-mcp: ${file}: 3 problems; nothing was imported`);
    expect(run.stderr).to.match(/wallets\[1\]\.type: expected one of cash, checking/);
    expect(run.stderr).to.match(/transactions\[\d+\]\.date: expected a date/);
    expect(run.stderr).to.match(/audit_log\[2\]\.idempotency_key: expected a UUID/);
    expect(run.stderr).not.to.match(/insert into|select |\n\s+at /i);
    await untouchedAndServing(user);
  });

  it("reads a file as a stream: the same import as from memory, and a truncated file is refused whole", async () => {
    const file = join(dir, "good.json");
    writeFileSync(file, `${JSON.stringify(original, null, 2)}\n`);
    const user = await server.createUser();
    const { counts } = await importFile(server.db, user.id, file);
    expect(counts.transactions).to.equal(rows(original, "transactions").length);
    expect(counts.audit_log).to.equal(rows(original, "audit_log").length);

    const cut = join(dir, "cut.json");
    const text = JSON.stringify(original);
    writeFileSync(cut, text.slice(0, Math.floor(text.length * 0.9)));
    const other = await server.createUser();
    let err: unknown;
    try {
      await importFile(server.db, other.id, cut);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ImportError);
    expect((err as Error).message).to.include("not valid JSON");
    await untouchedAndServing(other);
  });
});
