/**
 * list_recurring reads a summary that the triggers keep from an index, never the history
 * (docs/decisions.md#recurring-summary): the triggers' refresh reads a payee's newest rows as the top of
 * its range of transactions_user_payee_date_id (no sort, no scan) on either engine, and the call reads
 * the user's rows of recurring_payees and active bill reminders by their keys. The plan must name the
 * index and a condition on the user (and the payee key): a full scan of an index would not match. On
 * Postgres sequential scans are switched off, so that the empty tables do not make one the cheaper plan.
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

  it("refreshes a payee from the top of its index range, found by user and payee key, without sorting", async () => {
    const refresh = await plan(latestRowsSql("?", "?"), ["usr_x", "netflix"]);
    if (engine === "sqlite") {
      expect(refresh).to.match(/SEARCH transactions USING (COVERING )?INDEX transactions_user_payee_date_id \(user_id=\? AND <expr>=\?\)/);
      expect(refresh).to.not.include("TEMP B-TREE");
    } else {
      expect(refresh).to.match(/Index (Only )?Scan Backward using transactions_user_payee_date_id on transactions/);
      expect(refresh).to.match(/Index Cond: \(\(\(?user_id\)?(::text)? = 'usr_x'(::text)?\) AND \(lower\(/);
      expect(refresh).to.not.match(/Sort|Filter:/);
    }
  });

  it("reads the user's payees, active reminders and decisions by key", async () => {
    const read = await plan(RECURRING_INPUTS_SQL, ["usr_x", MAX_PAYEE_KEYS, "usr_x", true, "usr_x"]);
    if (engine === "sqlite") {
      expect(read).to.match(/SEARCH recurring_payees USING (COVERING )?INDEX \S+ \(user_id=\?\)/);
      expect(read).to.match(/SEARCH bill_reminders USING (COVERING )?INDEX bill_reminders_user_active \(user_id=\? AND active=\?\)/);
      expect(read).to.not.match(/SCAN (recurring_payees|bill_reminders|recurring_decisions)|TEMP B-TREE/);
    } else {
      expect(read).to.match(/Index (Only )?Scan using recurring_payees_pkey on recurring_payees[^\n]*\n\s+Index Cond: \(\(?user_id\)?(::text)? = 'usr_x'/);
      expect(read).to.match(
        /Index (Only )?Scan using bill_reminders_user_active on bill_reminders[^\n]*\n\s+Index Cond: \(\(\(?user_id\)?(::text)? = 'usr_x'(::text)?\) AND \(?active = true\)?\)/,
      );
      expect(read).to.not.match(/Sort|Filter:/);
    }
  });
});
