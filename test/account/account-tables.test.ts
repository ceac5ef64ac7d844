/**
 * What a person's rows are, against the live schema of each engine: every table is either one of the
 * person's tables with a rule (src/account/tables.ts) or listed as holding nobody's rows, so that a table
 * added by a later migration fails here until someone decides what it is (as test/ops/import-checks.test.ts
 * does for the export's columns); the deletion order respects every foreign key; a table added later is
 * deleted without a rule all the same (through user_id, or through a foreign key only), the other
 * person's rows left; Postgres's audit log stays append-only for every other transaction; no tool can
 * delete an account (no module a tool reaches deletes a user), and the help article a chatbot finds for
 * it names the account page.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { tools } from "../../generated/registry.js";
import type { Knex } from "knex";
import { deleteAccount } from "../../src/account/delete.js";
import { beginAccountErasure } from "../../src/db/account-erasure.js";
import { accountTables, ACCOUNT_TABLE_RULES, NOT_ACCOUNT_DATA, NOT_ACCOUNT_DATA_SQLITE, USERS_TABLE } from "../../src/account/tables.js";
import { readSchemaTables, type SchemaTable } from "../../src/db/schema-tables.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** Tables that are neither the person's with a rule, nor the users table, nor listed as nobody's. */
function unclassified(schema: readonly SchemaTable[]): string[] {
  const theirs = new Map(accountTables(schema).map((t) => [t.table, t]));
  return schema
    .map((t) => t.name)
    .filter((name) => {
      if (name === USERS_TABLE) return false;
      if (theirs.has(name)) return theirs.get(name)!.rule === undefined;
      return !(name in NOT_ACCOUNT_DATA) && !NOT_ACCOUNT_DATA_SQLITE.test(name);
    });
}

describe(`a person's tables, from the live schema (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let schema: SchemaTable[];
  before(async () => {
    server = await startTestServer();
    schema = await readSchemaTables(server.db);
  });
  after(async () => server?.close());

  it("classifies every table: the person's with a rule, or nobody's with a reason", () => {
    expect(schema.length).to.be.greaterThan(20);
    expect(unclassified(schema), "add a rule to ACCOUNT_TABLE_RULES or a reason to NOT_ACCOUNT_DATA (src/account/tables.ts)").to.deep.equal([]);
  });

  it("has no rule for a table that is not the person's, and no reason for a table that does not exist", () => {
    const theirs = new Set(accountTables(schema).map((t) => t.table));
    expect(Object.keys(ACCOUNT_TABLE_RULES).filter((t) => !theirs.has(t))).to.deep.equal([]);
    const live = new Set(schema.map((t) => t.name));
    expect(Object.keys(NOT_ACCOUNT_DATA).filter((t) => !live.has(t) || theirs.has(t))).to.deep.equal([]);
    expect(schema.some((t) => NOT_ACCOUNT_DATA_SQLITE.test(t.name))).to.equal(engine === "sqlite");
  });

  it("deletes each row before the rows it references, the undo capture first and the trigger-kept totals last", () => {
    const order = accountTables(schema).map((t) => t.table);
    for (const t of schema) {
      for (const k of t.foreignKeys) {
        if (order.includes(t.name) && order.includes(k.refTable) && k.refTable !== t.name)
          expect(order.indexOf(t.name), `${t.name} → ${k.refTable}`).to.be.lessThan(order.indexOf(k.refTable));
      }
    }
    expect(order[0]).to.equal("audit_capture");
    expect(order.slice(-3).sort()).to.deep.equal(["expense_day_totals", "recurring_payees", "wallet_month_totals"]);
    expect(accountTables(schema).find((t) => t.table === "oauth_refresh_tokens")?.rowsOf).to.deep.equal({
      kind: "references",
      column: "grant_id",
      parent: "oauth_grants",
      parentColumn: "id",
    });
  });

  it("deletes a table added later, through user_id or through a foreign key alone, and the test above names it until it has a rule", async () => {
    const alex = await server.createUser();
    const blake = await server.createUser();
    const txnOf = async (token: string) => {
      const { wallet } = await server.call("create_wallet", { name: "W", type: "cash", currency: "USD", idempotency_key: randomUUID() }, token);
      const made = await server.call(
        "create_transaction",
        { wallet_id: wallet.id, date: "2026-11-20", amount: "12.00", direction: "expense", idempotency_key: randomUUID() },
        token,
      );
      return made.transaction.id as string;
    };
    const alexTxn = await txnOf(alex.token);
    const blakeTxn = await txnOf(blake.token);
    await server.db.schema.createTable("later_notes", (t) => {
      t.increments("id");
      t.string("user_id", 40).notNullable();
      t.text("note");
    });
    // Like split parts: no user_id, only a key to the transaction (no cascade: the order must delete it first).
    await server.db.schema.createTable("later_parts", (t) => {
      t.increments("id");
      t.string("transaction_id", 40).notNullable().references("transactions.id");
      t.text("note");
    });
    try {
      await server.db("later_notes").insert([
        { user_id: alex.id, note: "a" },
        { user_id: blake.id, note: "b" },
      ]);
      await server.db("later_parts").insert([
        { transaction_id: alexTxn, note: "a" },
        { transaction_id: blakeTxn, note: "b" },
      ]);
      const later = await readSchemaTables(server.db);
      expect(unclassified(later)).to.deep.equal(["later_notes", "later_parts"]);
      const deleted = await deleteAccount(server.db, alex.id);
      expect(deleted.filter((d) => d.table.startsWith("later_"))).to.deep.equal([
        { table: "later_notes", label: "later notes", shown: true, rows: 1 },
        { table: "later_parts", label: "later parts", shown: true, rows: 1 },
      ]);
      expect(await server.db("later_notes").select("note")).to.deep.equal([{ note: "b" }]);
      expect(await server.db("later_parts").select("note")).to.deep.equal([{ note: "b" }]);
      expect(await server.db("transactions").where({ id: blakeTxn }).first("id")).to.deep.equal({ id: blakeTxn });
    } finally {
      await server.db.schema.dropTableIfExists("later_parts");
      await server.db.schema.dropTableIfExists("later_notes");
    }
  });

  it("skips the totals' DELETE triggers only for the person being deleted, inside that transaction", async () => {
    const alex = await server.createUser();
    const blake = await server.createUser();
    const spend = async (token: string) => {
      const { wallet } = await server.call("create_wallet", { name: "W", type: "cash", currency: "USD", idempotency_key: randomUUID() }, token);
      const made = await server.call(
        "create_transaction",
        { wallet_id: wallet.id, date: "2026-11-20", amount: "12.00", direction: "expense", tags: ["a", "b"], idempotency_key: randomUUID() },
        token,
      );
      return made.transaction.id as string;
    };
    const alexTxn = await spend(alex.token);
    const blakeTxn = await spend(blake.token);
    const totals = async (trx: Knex.Transaction, userId: string) => ({
      months: (await trx("wallet_month_totals").where({ user_id: userId })).length,
      days: (await trx("expense_day_totals").where({ user_id: userId })).length,
    });
    await server.db
      .transaction(async (trx) => {
        await beginAccountErasure(trx, alex.id);
        await trx("transaction_tags").whereIn("transaction_id", [alexTxn, blakeTxn]).del();
        await trx("transactions").whereIn("id", [alexTxn, blakeTxn]).del();
        // The erased person's totals stay for the deletion to remove; the other person's follow their rows.
        expect(await totals(trx, alex.id)).to.deep.equal({ months: 1, days: 1 });
        expect(await totals(trx, blake.id)).to.deep.equal({ months: 0, days: 0 });
        throw new Error("roll back");
      })
      .catch((err: Error) => expect(err.message).to.equal("roll back"));
    // Outside that transaction nobody is being deleted: the triggers run for everyone again.
    await server.call("delete_transaction", { transaction_id: alexTxn, idempotency_key: randomUUID() }, alex.token);
    expect((await server.db("wallet_month_totals").where({ user_id: alex.id })).length).to.equal(0);
  });

  // SQLite never had the append-only trigger: only Postgres has something to keep.
  if (engine === "postgres")
    it("keeps the audit log append-only on Postgres for any other transaction, and for the other person's entries in this one", async () => {
      const alex = await server.createUser();
      const blake = await server.createUser();
      for (const u of [alex, blake]) await server.call("create_wallet", { name: "W", type: "cash", currency: "USD", idempotency_key: randomUUID() }, u.token);
      const refused = async (fn: () => Promise<unknown>) => {
        let err: unknown;
        await fn().catch((e: unknown) => (err = e));
        expect(String(err)).to.match(/audit_log is append-only/);
      };
      await refused(() => server.db("audit_log").where({ user_id: alex.id }).del());
      await refused(() => server.db("audit_log").where({ user_id: alex.id }).update({ tool: "x" }));
      await refused(() =>
        server.db.transaction(async (trx) => {
          await trx.raw("SELECT set_config('finance_mcp.erase_user', ?, true)", [alex.id]);
          await trx("audit_log").where({ user_id: blake.id }).del();
        }),
      );
      await refused(() =>
        server.db.transaction(async (trx) => {
          await trx.raw("SELECT set_config('finance_mcp.erase_user', ?, true)", [alex.id]);
          await trx("audit_log").where({ user_id: alex.id }).update({ tool: "x" });
        }),
      );
      expect(await server.db("audit_log").whereIn("user_id", [alex.id, blake.id]).count({ n: "*" })).to.deep.equal([{ n: "2" }]);
    });
});

describe(`a chatbot asked to delete an account points to the page (${engine})`, () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  it("finds the help article first, and the article names the page", async () => {
    const user = await server.createUser();
    for (const query of ["delete my account", "delete all my data", "download all my data"]) {
      const { results } = await server.call("search_product_knowledge", { query, limit: 3 }, user.token);
      expect(results[0]?.id, query).to.equal("kb_delete-account-and-download-data");
    }
    const { article } = await server.call("get_knowledge_article", { id: "kb_delete-account-and-download-data" }, user.token);
    expect(article.body).to.contain("/account").and.contain("Delete my account").and.contain("Download my data");
  });
});

describe("no tool can delete an account", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  /** Every source file a module reaches through its relative imports (type-only ones included). */
  function reached(from: string): Set<string> {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(root, file), "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
        const target = relative(root, resolve(dirname(join(root, file)), m[1]!));
        // Sources are .ts imported as .js; generated/validators.js is JavaScript itself.
        const source = [target.replace(/\.js$/, ".ts"), target].find((f) => /\.(ts|js)$/.test(f) && existsSync(join(root, f)));
        if (source) visit(source);
      }
    };
    visit(from);
    return seen;
  }
  /** A query on the users table chained to a delete. */
  const DELETES_USERS = /\(\s*(?:["'`]users["'`]|USERS_TABLE)\s*\)(?:(?!;)[\s\S])*?\.del(?:ete)?\(/;

  it("finds the deletion from the account page (the walk and the pattern work)", () => {
    const fromPage = reached("src/web/leave-page.ts");
    expect(fromPage.has("src/account/delete.ts")).to.equal(true);
    expect(DELETES_USERS.test(readFileSync(join(root, "src/account/delete.ts"), "utf8"))).to.equal(true);
  });

  it("reaches no deletion of a user from any tool, and no tool is named for accounts or users", () => {
    const fromTools = reached("generated/tool-modules.ts");
    expect(fromTools.size).to.be.greaterThan(100);
    expect([...fromTools].filter((f) => f.startsWith("src/account/") || f.startsWith("src/web/"))).to.deep.equal([]);
    expect([...fromTools].filter((f) => DELETES_USERS.test(readFileSync(join(root, f), "utf8")))).to.deep.equal([]);
    expect(tools.map((t) => t.name).filter((n) => /account|user|profile|erase|forget/.test(n))).to.deep.equal([]);
  });
});
