/**
 * An import's planning reads what its rows could match, never the wallet's history (issue 41: "every call's
 * work is linear in its input"; docs/history/perf-import-growth.md). The same 200-row statement is planned
 * (a preview) against a wallet of one transaction and against one holding 1,500 transactions of the same dates with
 * other amounts and payees: the rows every query returns must be the same in number. Before the fix the
 * possible-duplicate search read every transaction of the statement's dates, and which of them an import
 * created was looked up in the whole import ledger (SQLite's plans below name the indexes that prevent it).
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { newId, randomIds } from "../../src/db/ids.js";
import { importStatement } from "../../src/domain/imports/import.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { insertUserWithToken } from "../helpers/direct-user.js";
import { girokontoCsv } from "../../scripts/bench/statement.js";

describe(`an import's work does not grow with the wallet's history (${engine})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let db: Knex;
  let userId: string;
  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    userId = (await insertUserWithToken(db, { currency: "EUR" })).id;
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  async function wallet(): Promise<string> {
    const id = newId("wal");
    const at = new Date().toISOString();
    await db("wallets").insert({
      id,
      user_id: userId,
      name: id,
      name_normalized: id,
      type: "checking",
      currency: "EUR",
      opening_balance_minor: 0,
      archived: false,
      created_at: at,
      updated_at: at,
    });
    return id;
  }

  const importInto = (walletId: string, statement: string, dryRun: boolean) =>
    importStatement(db, userId, { walletId, statement, importRows: [], skipInvalid: false, dryRun, now: new Date(), ids: randomIds });

  /** The statements and bindings of every query a preview of `statement` runs, and the rows they return. */
  async function preview(walletId: string, statement: string): Promise<{ rows: number; queries: { sql: string; bindings: readonly unknown[] }[] }> {
    let rows = 0;
    const queries: { sql: string; bindings: readonly unknown[] }[] = [];
    const onQuery = (q: { sql: string; bindings?: readonly unknown[] }) => queries.push({ sql: q.sql, bindings: q.bindings ?? [] });
    const onResponse = (response: unknown) => {
      const list = Array.isArray(response) ? response : (response as { rows?: unknown[] })?.rows;
      rows += Array.isArray(list) ? list.length : response != null && typeof response === "object" ? 1 : 0;
    };
    db.on("query", onQuery).on("query-response", onResponse);
    try {
      const outcome = await importInto(walletId, statement, true);
      expect(outcome.rows.filter((r) => r.status === "new")).to.have.length(200);
    } finally {
      db.off("query", onQuery).off("query-response", onResponse);
    }
    return { rows, queries };
  }

  // 200 rows of distinct payees and amounts over the same 540 days as the history below.
  const statement = girokontoCsv(200, "2026-11-24", { payee: (i) => `Measured ${i}`, cents: (i) => 900_000 + i });

  it("reads as many rows for a wallet of 1,501 transactions as for one of 1", async () => {
    const empty = await wallet();
    const full = await wallet();
    // One row in both, of the amount and day of the statement's first: a candidate that an import created
    // (with another payee, so not a possible duplicate). Both wallets also remember the statement's mapping.
    const one = girokontoCsv(1, "2026-11-24", { payee: () => "History one", cents: () => 900_000 });
    for (const w of [empty, full]) expect((await importInto(w, one, false)).created).to.have.length(1);
    for (let part = 0; part < 3; part++) {
      const history = girokontoCsv(500, "2026-11-24", { payee: (i) => `History ${part * 500 + i}`, cents: (i) => 100 + part * 500 + i });
      expect((await importInto(full, history, false)).created).to.have.length(500);
    }
    const before = await preview(empty, statement);
    const after = await preview(full, statement);
    expect(after.rows).to.equal(before.rows);
    expect(after.queries.length).to.equal(before.queries.length);

    if (engine === "sqlite") {
      let planned = 0;
      // Every read of transactions or import_keys searches by a key of what the statement holds (its keys,
      // amounts, payees, the candidates' ids): by the person, the wallet and dates alone it reads the history.
      for (const q of after.queries.filter((q) => /^select/i.test(q.sql) && /[`"](transactions|import_keys)[`"]/.test(q.sql))) {
        const plan = ((await db.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings as Knex.RawBinding[])) as { detail: string }[]).map((r) => r.detail).join("\n");
        expect(plan, q.sql).to.not.match(/SCAN (transactions|import_keys)\b/);
        expect(plan, q.sql).to.not.match(/SEARCH (transactions|import_keys) USING [^\n]*\((user_id=\?|user_id=\? AND wallet_id=\?)\)/);
        for (const line of plan.split("\n").filter((l) => /^SEARCH (transactions|import_keys)\b/.test(l)))
          expect(line, q.sql).to.match(/[( ](key|amount_minor|payee_key|transaction_id|id|external_id)=\?/);
        planned++;
      }
      expect(planned).to.be.greaterThan(3);
    }
  });
});
