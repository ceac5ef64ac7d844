/**
 * finance-mcp export / import: the demo person's data (written through the tools) exported, imported
 * into another, empty account of the same database, and exported again: the same data under new ids, and
 * the tools answer the same for both accounts. Also the CLI's JSON and CSV output and its refusals.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { closeServices, createServices } from "../../src/app.js";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { loadConfig } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { exportAccount, type AccountExport } from "../../src/portability/export.js";
import { ImportError, importAccount, importFile } from "../../src/portability/import.js";
import { ACCOUNT_TABLES } from "../../src/portability/tables.js";
import { engine } from "../helpers/database.js";
import { insertUserWithToken } from "../helpers/direct-user.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const BIN = fileURLToPath(new URL("../../bin/finance-mcp.js", import.meta.url));

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The sections as sorted lists of JSON texts (audit entries without their log-local id). */
function comparable(data: AccountExport): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const spec of ACCOUNT_TABLES) {
    out[spec.section] = (data[spec.section] as Record<string, unknown>[])
      .map((row) => {
        const { id, ...rest } = row;
        return JSON.stringify(spec.section === "audit_log" ? rest : { id, ...rest });
      })
      .sort();
  }
  return out;
}

describe(`export and import (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let alex: TestUser;
  let original: AccountExport;
  let dir: string;
  before(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "fmcp-export-"));
    alex = await server.createUser({ email: "alex@example.test", timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller);
    original = await exportAccount(server.db, alex.id);
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  it("exports every section of the account, and nothing of another user", async () => {
    const other = await server.createUser();
    await server.call("create_wallet", { name: "Not Alex's", type: "cash", currency: "USD", idempotency_key: crypto.randomUUID() }, other.token);
    const data = await exportAccount(server.db, alex.id);
    expect(data).to.include({ format: "finance-mcp-export", version: 1 });
    expect(data.user).to.deep.equal({ email: "alex@example.test", timezone: "Europe/Berlin", default_currency: "EUR" });
    const counts = Object.fromEntries(ACCOUNT_TABLES.map((s) => [s.section, (data[s.section] as unknown[]).length]));
    expect(counts.wallets).to.equal(4);
    expect(counts.transactions).to.be.greaterThan(60);
    expect(counts.budgets).to.equal(4);
    expect(counts.goals).to.equal(1);
    expect(counts.goal_contributions).to.be.at.least(3);
    expect(counts.bill_reminders).to.equal(5);
    expect(counts.audit_log).to.be.greaterThan(counts.transactions!);
    const text = JSON.stringify(data);
    expect(text).not.to.include(other.id);
    expect(text).not.to.include("Not Alex's");
    expect(text).not.to.include("password");
    const tagged = (data.transactions as { tags: string[] }[]).filter((t) => t.tags.includes("trip-nyc"));
    expect(tagged.length).to.equal(7);
  });

  it("round trip: imported into an empty account, the export is the same under new ids, and the tools agree", async () => {
    const sam = await server.createUser({ email: "sam@example.test", timezone: "Europe/Berlin", currency: "EUR" });
    const { counts, ids } = await importAccount(server.db, sam.id, JSON.parse(JSON.stringify(original)));
    expect(counts.transactions).to.equal((original.transactions as unknown[]).length);
    const again = await exportAccount(server.db, sam.id);
    // Every id is new, and mapping the original's ids gives exactly the new export.
    for (const [oldId, newId] of ids) {
      expect(newId).not.to.equal(oldId);
      expect(newId.slice(0, 4)).to.equal(oldId.slice(0, 4));
    }
    const remap = (text: string) => text.replace(/\b(wal|txn|trf|bud|gol|gct|bil)_[0-9A-Za-z]{22}\b/g, (id) => ids.get(id) ?? id);
    const mapped = JSON.parse(remap(JSON.stringify(original))) as AccountExport;
    expect(comparable(again)).to.deep.equal(comparable(mapped));

    // The derived data (balances, budget spending, tag filters) was rebuilt by the database.
    // Alex's answers with Alex's ids mapped to the new ones must be Sam's answers.
    const balances = async (token: string) => {
      const wallets = (await server.call("list_wallets", {}, token)).wallets as { id: string; name: string }[];
      const out: Record<string, unknown> = {};
      for (const w of wallets) out[w.name] = (await server.call("get_wallet_balance", { wallet_id: w.id }, token)).balance;
      return JSON.stringify(out);
    };
    expect(await balances(sam.token)).to.equal(remap(await balances(alex.token)));
    const budgets = async (token: string) =>
      ((await server.call("list_budgets", {}, token)).budgets as Record<string, unknown>[]).map((b) => JSON.stringify(b)).sort();
    expect(await budgets(sam.token)).to.deep.equal((await budgets(alex.token)).map(remap).sort());
    const trip = async (token: string) => (await server.call("list_transactions", { tags_any: ["trip-nyc"], limit: 50 }, token)).transactions.length;
    expect(await trip(sam.token)).to.equal(7);
  });

  it("imports again the export of an account with a rule, a rate, a statement import, a bulk edit and an undo in it", async () => {
    const kim = await server.createUser({ email: "kim.history@example.test", timezone: "Europe/Berlin", currency: "EUR" });
    const key = () => crypto.randomUUID();
    await server.call("save_rule", { operator: "contains", value: "rewe", set_category: "Groceries", idempotency_key: key() }, kim.token);
    await server.call("set_exchange_rate", { base: "USD", quote: "EUR", rate: "0.9215", date: "2026-11-20", idempotency_key: key() }, kim.token);
    const { wallet } = await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, kim.token);
    const statement = "Date,Description,Amount\n2026-11-02,REWE Markt,-23.40\n2026-11-03,Bakery,-4.10\n";
    await server.call("import_transactions", { wallet_id: wallet.id, statement, idempotency_key: key() }, kim.token);
    await server.call(
      "set_recurring_series",
      { series: "expense:EUR:rewe markt", decision: "correct", amount_max: "30.00", idempotency_key: key() },
      kim.token,
    );
    const bulk = await server.call(
      "update_transactions",
      { filter: { wallet_id: wallet.id }, expected_count: 2, add_tags: ["november"], idempotency_key: key() },
      kim.token,
    );
    await server.call("undo_change", { audit_id: bulk.audit_id, idempotency_key: key() }, kim.token);
    const exported = await exportAccount(server.db, kim.id);
    const actions = (exported.audit_log as { action: string; resource_type: string }[]).map((e) => `${e.action} ${e.resource_type}`);
    expect(actions).to.include.members([
      "create rule",
      "create exchange_rate",
      "create import",
      "create recurring_series",
      "bulk_update transaction",
      "undo transaction",
    ]);

    const lee = await server.createUser({ email: "lee.history@example.test", timezone: "Europe/Berlin", currency: "EUR" });
    const { counts } = await importAccount(server.db, lee.id, JSON.parse(JSON.stringify(exported)));
    expect(counts.audit_log).to.equal(actions.length);
    expect(counts.transactions).to.equal(2);
    // The rule and the rate come along: the person's filing and conversions are their data too.
    expect([counts.rules, counts.exchange_rates, counts.recurring_decisions]).to.deep.equal([1, 1, 1]);
    const decided = await server.db("recurring_decisions").where({ user_id: lee.id }).first("series_key", "decision", "amount_max_minor");
    expect({ ...decided, amount_max_minor: Number(decided.amount_max_minor) }).to.deep.equal({
      series_key: "expense:EUR:rewe markt",
      decision: "corrected",
      amount_max_minor: 3000,
    });
    const rules = (await server.call("list_rules", {}, lee.token)).rules as { value: string; set_category: string | null }[];
    expect(rules.map((r) => [r.value, r.set_category])).to.deep.equal([["rewe", "Groceries"]]);

    // An export made before rules and rates were exported has neither list: it imports as before, from
    // an object and from a file (the streamed path).
    const older: Record<string, unknown> = JSON.parse(JSON.stringify(exported));
    delete older.rules;
    delete older.exchange_rates;
    older.audit_log = [];
    const fromObject = await importAccount(server.db, (await server.createUser()).id, older as AccountExport);
    expect(fromObject.counts.transactions).to.equal(2);
    const file = join(dir, "older.json");
    writeFileSync(file, JSON.stringify(older));
    const fromFile = await importFile(server.db, (await server.createUser()).id, file);
    expect(fromFile.counts.transactions).to.equal(2);
  });

  it("refuses an account that is not empty, and a file that is not an export, leaving nothing behind", async () => {
    const busy = await server.createUser();
    await server.call("create_wallet", { name: "Existing", type: "cash", currency: "USD", idempotency_key: crypto.randomUUID() }, busy.token);
    let err: unknown;
    try {
      await importAccount(server.db, busy.id, original);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ImportError);
    expect((err as Error).message).to.match(/not empty/);
    expect((await server.db("wallets").where({ user_id: busy.id })).length).to.equal(1);

    const empty = await server.createUser();
    for (const bad of [[], { format: "other" }, { ...original, version: 2 }, { ...original, transactions: undefined }]) {
      let e2: unknown;
      try {
        await importAccount(server.db, empty.id, bad);
      } catch (e) {
        e2 = e;
      }
      expect(e2).to.be.instanceOf(ImportError);
    }
    // A file whose last rows fail (a tag too long for its column) rolls back whole.
    const broken = JSON.parse(JSON.stringify(original)) as AccountExport;
    const last = (broken.transactions as { tags: string[] }[]).at(-1)!;
    last.tags = ["x".repeat(5000)];
    let e3: unknown;
    try {
      await importAccount(server.db, empty.id, broken);
    } catch (e) {
      e3 = e;
    }
    if (e3 !== undefined) {
      expect((await server.db("wallets").where({ user_id: empty.id })).length).to.equal(0);
      expect((await server.db("transactions").where({ user_id: empty.id })).length).to.equal(0);
    } else {
      // SQLite does not enforce VARCHAR lengths: then the import went through whole.
      expect(engine).to.equal("sqlite");
    }
  });

  it("the CLI: export as JSON and CSV, import into an empty account, and clear refusals", async () => {
    const env = { DATABASE_URL: server.database.url };
    const json = await cli(["export", "--email", "alex@example.test"], env);
    expect(json.code, json.stderr).to.equal(0);
    const data = JSON.parse(json.stdout) as AccountExport;
    expect((data.transactions as unknown[]).length).to.equal((original.transactions as unknown[]).length);

    const csvDir = join(dir, "csv");
    const csv = await cli(["export", "--email", "alex@example.test", "--format", "csv", "--out", csvDir], env);
    expect(csv.code, csv.stderr).to.equal(0);
    const lines = readFileSync(join(csvDir, "transactions.csv"), "utf8").trim().split("\n");
    expect(lines[0]).to.match(/^id,wallet_id,date,amount_minor,currency,direction,payee/);
    expect(lines.length).to.equal((original.transactions as unknown[]).length + 1);
    expect(readFileSync(join(csvDir, "transactions.csv"), "utf8")).to.include("trip-nyc");
    expect(readFileSync(join(csvDir, "wallets.csv"), "utf8").trim().split("\n")).to.have.length(5);

    const file = join(dir, "alex.json");
    writeFileSync(file, json.stdout);
    const importer = await server.createUser({ email: "kim@example.test" });
    const imported = await cli(["import", "--email", "kim@example.test", file], env);
    expect(imported.code, imported.stderr).to.equal(0);
    expect(JSON.parse(imported.stdout).imported.transactions).to.equal((original.transactions as unknown[]).length);
    expect((await server.db("transactions").where({ user_id: importer.id })).length).to.equal((original.transactions as unknown[]).length);

    const again = await cli(["import", "--email", "kim@example.test", file], env);
    expect(again.code).to.equal(2);
    expect(again.stderr).to.match(/^finance-mcp: the account is not empty/);
    const nobody = await cli(["export", "--email", "nobody@example.test"], env);
    expect(nobody.code).to.equal(2);
    expect(nobody.stderr).to.include("no user with the email nobody@example.test");
    const badFormat = await cli(["export", "--email", "alex@example.test", "--format", "xml"], env);
    expect(badFormat.stderr).to.include('--format must be json or csv, got "xml"');
  });
});

describe("export from SQLite, import into Postgres (moving a person between engines)", function () {
  this.timeout(120_000);
  if (engine !== "postgres") return;

  it("the SQLite export imports into Postgres and the tools answer the same", async () => {
    const folder = mkdtempSync(join(tmpdir(), "fmcp-move-"));
    const lite = createDb(`sqlite:${join(folder, "from.sqlite")}`);
    let exported: AccountExport;
    let liteBalances: string;
    try {
      await migrateLatest(lite);
      const services = await createServices(loadConfig({ DATABASE_URL: `sqlite:${join(folder, "from.sqlite")}`, LOG_LEVEL: "silent" }), lite);
      try {
        const owner = await insertUserWithToken(lite);
        const caller = await authenticateBearer(lite, `Bearer ${owner.token}`, "");
        await seedDemoPerson(services.dispatch, caller);
        exported = JSON.parse(JSON.stringify(await exportAccount(lite, owner.id))) as AccountExport;
        const call = (tool: string, params: Record<string, unknown>) => services.dispatch(tool, params, { caller, requestId: "t" });
        const wallets = (await call("list_wallets", {})).wallets as { id: string; name: string }[];
        const out: Record<string, unknown> = {};
        for (const w of wallets) out[w.name] = (await call("get_wallet_balance", { wallet_id: w.id })).balance;
        liteBalances = JSON.stringify(out);
      } finally {
        await closeServices(services);
      }
    } finally {
      await lite.destroy();
      rmSync(folder, { recursive: true, force: true });
    }

    const server = await startTestServer();
    try {
      const target = await server.createUser();
      const { ids } = await importAccount(server.db, target.id, exported!);
      const wallets = (await server.call("list_wallets", {}, target.token)).wallets as { id: string; name: string }[];
      const out: Record<string, unknown> = {};
      for (const w of wallets) out[w.name] = (await server.call("get_wallet_balance", { wallet_id: w.id }, target.token)).balance;
      expect(JSON.stringify(out)).to.equal(liteBalances!.replace(/\b(wal|txn|trf|bud|gol|gct|bil)_[0-9A-Za-z]{22}\b/g, (id) => ids.get(id) ?? id));
      const again = await exportAccount(server.db, target.id);
      expect((again.transactions as unknown[]).length).to.equal((exported!.transactions as unknown[]).length);
      expect((again.bill_reminders as { autopay: unknown }[]).filter((b) => b.autopay === true).length).to.equal(2);
    } finally {
      await server.close();
    }
  });
});
