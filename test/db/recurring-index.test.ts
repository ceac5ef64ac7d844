/**
 * list_recurring reads a summary that the triggers keep from an index, never the history
 * (docs/decisions.md#recurring-summary): the triggers' refresh reads a payee's newest rows as the top of
 * its range of transactions_user_payee_date_id (no sort, no scan) on either engine, and the call reads
 * the user's rows of recurring_payees by its key. Planner output is read with the table sized so that a
 * scan would be chosen if the index did not serve the statement (Postgres: no seq scan).
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createDb } from "../../src/db/knex.js";
import { migrationsDirectory } from "../../src/db/migrate.js";
import { MAX_PAYEE_KEYS, RECURRING_INPUTS_SQL } from "../../src/domain/recurring/store.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const { latestRowsSql } = (await import(pathToFileURL(join(migrationsDirectory, "20261125170000_add_recurring_payees.js")).href)) as {
  latestRowsSql(user: string, key: string): string;
};

describe(`recurring detection is index-backed (${engine})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let db: Knex;
  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
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

  it("refreshes a payee from the top of its index range, without sorting or scanning", async () => {
    const refresh = await plan(latestRowsSql("?", "?"), ["usr_x", "netflix"]);
    expect(refresh).to.include("transactions_user_payee_date_id");
    expect(refresh).to.not.match(engine === "sqlite" ? /SCAN transactions(?! USING)|TEMP B-TREE/ : /Seq Scan on transactions|Sort/);
  });

  it("reads the user's payees and active reminders by key", async () => {
    const read = await plan(RECURRING_INPUTS_SQL, ["usr_x", MAX_PAYEE_KEYS, "usr_x", true]);
    expect(read).to.not.match(engine === "sqlite" ? /SCAN (recurring_payees|transactions)(?! USING)/ : /Seq Scan on (recurring_payees|transactions)/);
    expect(read).to.not.include("transactions");
  });
});
