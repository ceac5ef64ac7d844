/**
 * The SQLite store of the limiter (src/db/rate-limit-store.ts, RateLimiterSQLiteAutocommit): without the
 * library's per-call transaction, on knex's own connection. The library must still go through the
 * overridden hooks, the counts must be those of the library's own store, also with two connections (two
 * processes) on one file, and a consume while a knex write transaction is open must wait for it without
 * stopping the process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { RateLimiterRes, RateLimiterSQLite } from "rate-limiter-flexible";
import { loadConfig } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { cacheStatements } from "../../src/db/statement-cache.js";
import { RateLimiterSQLiteAutocommit } from "../../src/db/rate-limit-store.js";
import { createRateLimits } from "../../src/limits/limiter.js";

const TABLE = "CREATE TABLE IF NOT EXISTS rate_limits (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)";

describe("limiter store on SQLite without a transaction per call", () => {
  let dir: string;
  const open: Database.Database[] = [];
  const connect = (file = "limits.sqlite") => {
    const db = cacheStatements(new Database(join(dir, file)));
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(TABLE);
    open.push(db);
    return db;
  };
  const limiter = (Kind: typeof RateLimiterSQLite, db: Database.Database, points: number, blockDuration = 0) =>
    new Kind({
      storeClient: db,
      storeType: "better-sqlite3",
      tableName: "rate_limits",
      tableCreated: true,
      keyPrefix: "t",
      points,
      duration: 60,
      blockDuration,
    });

  async function outcome(l: RateLimiterSQLite, key: string) {
    try {
      const r = await l.consume(key, 1);
      return { allowed: true, remaining: r.remainingPoints, consumed: r.consumedPoints };
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      return { allowed: false, remaining: e.remainingPoints, consumed: e.consumedPoints };
    }
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-limiter-"));
  });
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the library still calls the overridden upsert hook, and no transaction is opened", async () => {
    expect(typeof (RateLimiterSQLite.prototype as unknown as Record<string, unknown>)._upsertTransactionBetterSQLite3).to.equal("function");
    const db = connect();
    db.transaction = () => {
      throw new Error("a transaction was opened");
    };
    const l = limiter(RateLimiterSQLiteAutocommit, db, 5);
    let calls = 0;
    const hook = (l as unknown as { _upsertTransactionBetterSQLite3: (...a: unknown[]) => Promise<unknown> })._upsertTransactionBetterSQLite3.bind(l);
    (l as unknown as { _upsertTransactionBetterSQLite3: unknown })._upsertTransactionBetterSQLite3 = (...a: unknown[]) => {
      calls++;
      return hook(...a);
    };
    expect(await outcome(l, "k")).to.deep.equal({ allowed: true, remaining: 4, consumed: 1 });
    expect(calls).to.equal(1);
  });

  it("counts exactly as the library's own store: allowed, refused, blocked, penalties and rewards", async () => {
    const mine = limiter(RateLimiterSQLiteAutocommit, connect("a.sqlite"), 3, 30);
    const stock = limiter(RateLimiterSQLite, connect("b.sqlite"), 3, 30);
    const seen: unknown[][] = [[], []];
    for (const [i, l] of [mine, stock].entries()) {
      for (let n = 0; n < 5; n++) seen[i]!.push(await outcome(l, "a"));
      await l.reward("b", 1);
      seen[i]!.push(await outcome(l, "b"));
      await l.penalty("c", 2);
      seen[i]!.push(await outcome(l, "c"), await outcome(l, "c"));
      const got = await l.get("a");
      seen[i]!.push({ points: got?.consumedPoints, blockedLong: (got?.msBeforeNext ?? 0) > 25_000 });
    }
    expect(seen[0]).to.deep.equal(seen[1]);
    expect(seen[0]!.slice(0, 5).map((o) => (o as { allowed: boolean }).allowed)).to.deep.equal([true, true, true, false, false]);
  });

  it("two connections on one file share the count exactly: 120 of 150", async () => {
    const a = limiter(RateLimiterSQLiteAutocommit, connect(), 120);
    const b = limiter(RateLimiterSQLiteAutocommit, connect(), 120);
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => outcome(i % 2 ? a : b, "shared")));
    expect(results.filter((r) => r.allowed)).to.have.length(120);
    const row = open[0]!.prepare("SELECT points FROM rate_limits WHERE key = ?").get("t:shared") as { points: bigint | number };
    expect(Number(row.points)).to.equal(150);
  });

  it("a failing upsert rejects (so the insurance limiter takes over) and leaves nothing half-done", async () => {
    const db = connect();
    const l = limiter(RateLimiterSQLiteAutocommit, db, 5);
    await outcome(l, "k");
    db.exec("DROP TABLE rate_limits");
    let error: unknown;
    await l.consume("k", 1).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(Error);
    expect(db.inTransaction).to.equal(false);
  });

  describe("on knex's connection (integers as BigInt)", () => {
    const setup = async (perMinute = "120") => {
      const url = `sqlite:${join(dir, "service.sqlite")}`;
      const config = loadConfig({ DATABASE_URL: url, RATE_LIMIT_MCP_PER_MINUTE: perMinute });
      const db = createDb(url);
      await migrateLatest(db);
      return { db, limits: createRateLimits(db, config) };
    };
    const stored = async (db: ReturnType<typeof createDb>, key: string) => {
      const row = await db("rate_limits").where({ key }).first("points");
      return row === undefined ? undefined : Number(row.points);
    };

    it("counts in the table through knex: 3 allowed of 5, the window's reset and remaining right", async () => {
      const { db, limits } = await setup("3");
      try {
        const decisions = [];
        for (let i = 0; i < 5; i++) decisions.push(await limits.consume("mcp", "tok_a"));
        expect(decisions.map((d) => [d.allowed, d.remaining])).to.deep.equal([
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
          [false, 0],
        ]);
        for (const d of decisions) expect(d.resetSeconds).to.be.within(1, 60);
        expect(await stored(db, "mcp:tok_a")).to.equal(5);
      } finally {
        await limits.close();
        await db.destroy();
      }
    });

    it("waits for an open write transaction instead of stalling the process, and counts in the store", async () => {
      const { db, limits } = await setup();
      try {
        await limits.consume("mcp", "warm");
        let finish!: () => void;
        const held = new Promise<void>((resolve) => (finish = resolve));
        let wrote!: () => void;
        const writing = new Promise<void>((resolve) => (wrote = resolve));
        const trx = db.transaction(async (t) => {
          await t("rate_limits").insert({ key: "other", points: 1, expire: null });
          wrote();
          await held;
        });
        await writing; // the transaction now holds SQLite's write lock
        let settled = false;
        const pending = limits.consume("mcp", "tok_b").then((d) => ((settled = true), d));
        // The event loop still turns (a busy wait on the lock would block it) and the consume waits.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const settledWhileHeld = settled;
        finish();
        await trx;
        expect(settledWhileHeld).to.equal(false);
        const d = await pending;
        expect(d).to.include({ allowed: true, remaining: 119 });
        // Counted in the table, not by the in-memory insurance limiter.
        expect(await stored(db, "mcp:tok_b")).to.equal(1);
      } finally {
        await limits.close();
        await db.destroy();
      }
    });
  });
});
