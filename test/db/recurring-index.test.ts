/**
 * list_recurring reads an index, not the history (docs/decisions.md#recurring-detection): the payee walk and
 * the per-payee fetch both use transactions_user_payee_date on either engine, so a call costs a few rows per
 * payee at any ledger size. Planner output is read with the table sized so that a scan would be chosen if
 * the index did not serve the statement (SQLite: ANALYZE statistics of a large table; Postgres: no seq scan).
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { latestChargesSql, MAX_PAYEE_KEYS, PAYEE_KEYS_SQL } from "../../src/domain/recurring/store.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

describe(`recurring detection is index-backed (${engine})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let db: Knex;
  before(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    await migrateLatest(db);
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  async function plan(sql: string, bindings: Knex.RawBinding[]): Promise<string> {
    if (engine === "sqlite") {
      const rows = (await db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings)) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    }
    return db.transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_seqscan = off");
      const result = (await trx.raw(`EXPLAIN ${sql}`, bindings)) as { rows: { "QUERY PLAN": string }[] };
      return result.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  }

  it("walks the payees and reads each payee's newest charges through transactions_user_payee_date, never scanning", async () => {
    const walk = await plan(PAYEE_KEYS_SQL, ["usr_x", "usr_x", MAX_PAYEE_KEYS]);
    const fetch = await plan(latestChargesSql(2), ["usr_x", "netflix", "usr_x", "rewe"]);
    for (const p of [walk, fetch]) {
      expect(p).to.include("transactions_user_payee_date");
      expect(p).to.not.match(engine === "sqlite" ? /SCAN transactions(?! USING)/ : /Seq Scan on transactions/);
    }
    // The first entry past a key, not an aggregate over the user's whole range.
    expect(walk).to.not.match(/Aggregate/);
  });
});
