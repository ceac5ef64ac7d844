/**
 * The prepared-statement cache under knex and the limiter (src/db/statement-cache.ts): a cached statement
 * must behave exactly like a freshly prepared one, and the cache must stay bounded.
 */
import Database from "better-sqlite3";
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb, dialect } from "../../src/db/knex.js";
import { cacheStatements, statementCacheStats } from "../../src/db/statement-cache.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const BIG = 9_007_199_254_740_993n; // 2^53 + 1: a Number would round it

function freshDb(maxEntries?: number, safe = true): Database.Database {
  const db = new Database(":memory:");
  db.defaultSafeIntegers(safe);
  cacheStatements(db, maxEntries);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL, note TEXT)");
  return db;
}

describe("statement cache (better-sqlite3)", () => {
  it("hands out the same statement for the same SQL and a different one for different SQL", () => {
    const db = freshDb();
    const a = db.prepare("SELECT * FROM t WHERE id = ?");
    expect(db.prepare("SELECT * FROM t WHERE id = ?")).to.equal(a);
    expect(db.prepare("SELECT * FROM t WHERE id = ? ")).to.not.equal(a);
    expect(db.prepare("SELECT id FROM t WHERE id = ?")).to.not.equal(a);
    expect(statementCacheStats(db)).to.include({ hits: 1 });
    db.close();
  });

  it("gives the same results as fresh statements, with bindings that change between calls", () => {
    const db = freshDb();
    const plain = new Database(":memory:");
    plain.defaultSafeIntegers(true);
    plain.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL, note TEXT)");
    for (const conn of [db, plain]) {
      for (let i = 1; i <= 20; i++) conn.prepare("INSERT INTO t (id, amount, note) VALUES (?, ?, ?)").run(i, BIG * BigInt(i % 3), i % 2 ? null : `n${i}`);
      conn.prepare("UPDATE t SET amount = amount + ? WHERE id > ?").run(1, 15);
    }
    for (let lo = 0; lo < 20; lo += 4) {
      const sql = "SELECT id, amount, note FROM t WHERE id > ? ORDER BY id";
      expect(db.prepare(sql).all(lo)).to.deep.equal(plain.prepare(sql).all(lo));
    }
    expect(db.prepare("SELECT amount FROM t WHERE id = ?").get(2)).to.deep.equal({ amount: BIG * 2n + 0n });
    expect(statementCacheStats(db)!.hits).to.be.greaterThan(20);
    db.close();
    plain.close();
  });

  it("stays within its bound and evicts the least recently used statement", () => {
    const db = freshDb(3);
    const first = db.prepare("SELECT 1");
    db.prepare("SELECT 2");
    db.prepare("SELECT 3");
    expect(db.prepare("SELECT 1")).to.equal(first); // now the most recent
    db.prepare("SELECT 4"); // evicts SELECT 2
    expect(statementCacheStats(db)!.size).to.equal(3);
    expect(db.prepare("SELECT 1")).to.equal(first);
    const misses = statementCacheStats(db)!.misses;
    db.prepare("SELECT 2");
    expect(statementCacheStats(db)!.misses).to.equal(misses + 1);
    for (let n = 1; n <= 50; n++) db.prepare(`SELECT * FROM t WHERE id IN (${Array(n).fill("?").join(",")})`);
    expect(statementCacheStats(db)!.size).to.equal(3);
    db.close();
  });

  it("keeps BigInt integers under defaultSafeIntegers(true), and numbers under false", () => {
    const safe = freshDb();
    safe.prepare("INSERT INTO t (id, amount) VALUES (?, ?)").run(1, BIG);
    for (let i = 0; i < 3; i++) expect(safe.prepare("SELECT amount FROM t WHERE id = ?").get(1)).to.deep.equal({ amount: BIG });
    safe.close();
    const unsafe = freshDb(undefined, false);
    unsafe.prepare("INSERT INTO t (id, amount) VALUES (?, ?)").run(1, 42);
    for (let i = 0; i < 3; i++) expect(unsafe.prepare("SELECT amount FROM t WHERE id = ?").get(1)).to.deep.equal({ amount: 42 });
    unsafe.close();
  });

  it("resets a statement's modes (safeIntegers, pluck, raw, expand) before handing it out again", () => {
    const db = freshDb();
    db.prepare("INSERT INTO t (id, amount) VALUES (?, ?)").run(1, BIG);
    const sql = "SELECT amount FROM t WHERE id = ?";
    // What knex does for a query with { safeIntegers: false }.
    expect(db.prepare(sql).safeIntegers(false).get(1)).to.deep.equal({ amount: Number(BIG) });
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: BIG });
    expect(db.prepare(sql).pluck().get(1)).to.equal(BIG);
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: BIG });
    expect(db.prepare(sql).raw().get(1)).to.deep.equal([BIG]);
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: BIG });
    expect(db.prepare(sql).expand().get(1)).to.deep.equal({ t: { amount: BIG } });
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: BIG });
    db.close();
  });

  it("follows a change of the connection's defaultSafeIntegers", () => {
    const db = freshDb();
    db.prepare("INSERT INTO t (id, amount) VALUES (?, ?)").run(1, 7);
    const sql = "SELECT amount FROM t WHERE id = ?";
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: 7n });
    db.defaultSafeIntegers(false);
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: 7 });
    db.defaultSafeIntegers();
    expect(db.prepare(sql).get(1)).to.deep.equal({ amount: 7n });
    db.close();
  });

  it("learns the default of a connection that set it before the cache was installed", () => {
    const db = new Database(":memory:");
    db.defaultSafeIntegers(true);
    cacheStatements(db);
    cacheStatements(db); // a second install changes nothing
    const sql = "SELECT 5 AS five";
    expect(db.prepare(sql).safeIntegers(false).get()).to.deep.equal({ five: 5 });
    expect(db.prepare(sql).get()).to.deep.equal({ five: 5n });
    db.close();
  });

  it("does not hand out a statement that is busy iterating or has bound parameters", () => {
    const db = freshDb();
    for (let i = 1; i <= 3; i++) db.prepare("INSERT INTO t (id, amount) VALUES (?, ?)").run(i, i);
    const sql = "SELECT id FROM t ORDER BY id";
    const iterating = db.prepare(sql);
    const it = iterating.iterate();
    it.next();
    const other = db.prepare(sql);
    expect(other).to.not.equal(iterating);
    it.return?.();
    const boundSql = "SELECT id FROM t WHERE id = ?";
    const bound = db.prepare(boundSql).bind(2);
    expect(bound.get()).to.deep.equal({ id: 2n });
    const again = db.prepare(boundSql);
    expect(again).to.not.equal(bound);
    expect(again.get(3)).to.deep.equal({ id: 3n });
    db.close();
  });

  it("sees schema changes through a cached statement", () => {
    const db = freshDb();
    db.prepare("INSERT INTO t (id, amount) VALUES (?, ?)").run(1, 1);
    expect(db.prepare("SELECT * FROM t").all()).to.deep.equal([{ id: 1n, amount: 1n, note: null }]);
    db.exec("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'");
    expect(db.prepare("SELECT * FROM t").all()).to.deep.equal([{ id: 1n, amount: 1n, note: null, extra: "x" }]);
    db.close();
  });
});

describe(`statement cache under knex (${engine})`, () => {
  let database: TestDatabase;
  let db: Knex;
  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    await db.schema.createTable("cache_probe", (t) => {
      t.integer("id").primary();
      t.bigInteger("amount").notNullable();
    });
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, amount: (BIG + BigInt(i)).toString() }));
    await db("cache_probe").insert(rows);
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it("answers repeated and varying queries exactly, big integers included", async () => {
    for (let round = 0; round < 3; round++) {
      for (let n = 1; n <= 40; n += 3) {
        const ids = Array.from({ length: n }, (_, i) => i + 1);
        const rows = await db("cache_probe").whereIn("id", ids).orderBy("id").select("id", "amount");
        expect(rows.map((r) => BigInt(r.amount))).to.deep.equal(ids.map((i) => BIG + BigInt(i - 1)));
      }
    }
    const sum = await db("cache_probe").where("id", "<=", 2).sum({ s: "amount" }).first();
    expect(BigInt(sum!.s)).to.equal(2n * BIG + 1n);
  });

  it("a query with { safeIntegers: false } leaves the next run of the same SQL returning BigInt (SQLite)", async function () {
    if (dialect(db) !== "sqlite") this.skip();
    const q = () => db("cache_probe").where({ id: 3 }).first("amount");
    const unsafe = await q().options({ safeIntegers: false });
    expect(typeof unsafe.amount).to.equal("number");
    const safe = await q();
    expect(safe.amount).to.equal(BIG + 2n);
  });

  it("is installed on knex's connection and hit by repeated queries (SQLite)", async function () {
    if (dialect(db) !== "sqlite") this.skip();
    const conn = (await db.client.acquireConnection()) as Database.Database;
    try {
      const before = statementCacheStats(conn);
      expect(before, "no cache on the knex connection").to.not.equal(undefined);
      for (let i = 0; i < 5; i++) await db("cache_probe").where({ id: 1 }).first("id").connection(conn);
      const after = statementCacheStats(conn)!;
      expect(after.hits - before!.hits).to.be.at.least(4);
      expect(after.size).to.be.at.most(300);
    } finally {
      await db.client.releaseConnection(conn);
    }
  });

  it("rolls back and commits through cached BEGIN/COMMIT/ROLLBACK statements", async () => {
    for (let i = 0; i < 3; i++) {
      await db
        .transaction(async (trx) => {
          await trx("cache_probe")
            .where({ id: 40 })
            .update({ amount: (BIG + 1000n).toString() });
          throw new Error("undo");
        })
        .catch((e: Error) => expect(e.message).to.equal("undo"));
      const row = await db("cache_probe").where({ id: 40 }).first("amount");
      expect(BigInt(row.amount)).to.equal(BIG + 39n);
    }
    await db.transaction(async (trx) => {
      await trx("cache_probe")
        .where({ id: 40 })
        .update({ amount: (BIG + 1000n).toString() });
    });
    expect(BigInt((await db("cache_probe").where({ id: 40 }).first("amount")).amount)).to.equal(BIG + 1000n);
  });
});
