/**
 * Writes to many transactions by id find them by the primary key (docs/decisions.md#bulk-writes-by-primary-key):
 * on SQLite without statistics, `user_id = ? AND id IN (…)` of more than ten ids was planned as a walk of
 * the user's whole range of an index on user_id (each entry's id tested against the list), a million
 * entries per statement at 1,000,000 transactions. byPrimaryKey names the key's index on SQLite; the
 * refund marking (run by the bulk edit on every row it re-files) goes through it too, and writes only
 * the rows whose flag changes. Planner output is read for the statements as the code runs them.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { byPrimaryKey } from "../../src/db/dialect.js";
import { markRefunds } from "../../src/domain/transactions/parts.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const ids = Array.from({ length: 500 }, (_, i) => `txn_${String(i).padStart(22, "0")}`);

describe(`bulk writes find transactions by primary key (${engine})`, function () {
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

  async function plan(sql: string, bindings: readonly unknown[]): Promise<string> {
    if (engine === "sqlite") {
      const rows = (await db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as Knex.RawBinding[])) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    }
    return db.transaction(async (trx) => {
      await trx.raw("SET LOCAL enable_seqscan = off");
      const result = (await trx.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[])) as { rows: { "QUERY PLAN": string }[] };
      return result.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  }
  const outer = (p: string) => p.split("\n")[0]!;

  it("updates a user's rows by a list of ids through the primary key, where the plain statement walks the user's index", async () => {
    const forced = byPrimaryKey(db, "transactions").where("user_id", "usr_x").whereIn("id", ids).update({ category: "A" }).toSQL();
    const plain = db("transactions").where("user_id", "usr_x").whereIn("id", ids).update({ category: "A" }).toSQL();
    if (engine === "sqlite") {
      expect(outer(await plan(forced.sql, forced.bindings))).to.match(/SEARCH transactions USING INDEX sqlite_autoindex_transactions_1 \(id=\?\)/);
      // What the helper is for: without it, SQLite picks an index on user_id and tests every id.
      expect(outer(await plan(plain.sql, plain.bindings))).to.match(/INDEX transactions_user_\w+ \(user_id=\?\)/);
    } else {
      expect(forced.sql).to.equal(plain.sql);
      expect(await plan(forced.sql, forced.bindings)).to.not.match(/Seq Scan on transactions/);
    }
  });

  it("marks refunds through the primary key, rewriting only the rows whose flag changes", async () => {
    const statements: { sql: string; bindings: readonly unknown[] }[] = [];
    const listen = (q: { sql: string; bindings?: readonly unknown[] }) => statements.push({ sql: q.sql, bindings: q.bindings ?? [] });
    db.on("query", listen);
    try {
      await markRefunds(db, "usr_x", ids);
    } finally {
      db.off("query", listen);
    }
    const updates = statements.filter((s) => /^UPDATE/i.test(s.sql.trim()));
    expect(updates).to.have.length(4); // transactions and parts, 300 ids and 200
    for (const s of updates) {
      expect(s.sql).to.match(/AND refund <> CASE/);
      if (engine === "sqlite") {
        const p = outer(await plan(s.sql, s.bindings));
        expect(p).to.match(/SEARCH (transactions|transaction_parts) USING (COVERING )?INDEX sqlite_autoindex_transaction(s|_parts)_1 \((transaction_)?id=\?\)/);
      }
    }
  });
});
