/**
 * The side connection: what every call does before its own work (the token lookup, the per-call rate
 * limits, the token's last use) runs on it, so that on SQLite another person's call never waits for a
 * long write transaction to let go of the one request connection (issue 51: beside a 5,000-row import
 * another user's whoami waited 4–7 s for it).
 *
 * SQLite: a second connection to the same file. In WAL mode its reads never wait for the writer (they
 * see the last commit, which is what authenticating needs); its writes (a rate-limit count, a last-use
 * time) do not wait for this process's write transactions: while one is open they fail at once as busy,
 * and the rate limiter then counts in memory (its insurance limiter, src/limits/limiter.ts), the last
 * use is written on a later call. A busy wait would stop the event loop (better-sqlite3 waits
 * synchronously) for as long as the transaction lasts. A write lock held by another process is waited
 * for FAIL_FAST_MS at most (a rate-limit count takes microseconds), then the same fallbacks apply. Postgres: the request pool itself, whose connections do not wait for each other.
 * An in-memory SQLite database has no second connection either: the request connection serves.
 * docs/decisions.md#bounded-at-the-cap.
 */
import type Database from "better-sqlite3";
import knexFactory, { type Knex } from "knex";
import { dialect } from "./knex.js";
import { cacheStatements } from "./statement-cache.js";
import { writeTransactionOpen } from "./pace.js";
import { FAIL_FAST_MS } from "./sqlite-busy.js";
import { SAFETY_NET_PAGES } from "./checkpoint.js";

/** The side connection of `db`: a new one on SQLite files, `db` itself otherwise. */
export function sideConnection(db: Knex): Knex {
  if (dialect(db) !== "sqlite") return db;
  const filename = (db.client.config.connection as { filename?: string } | undefined)?.filename;
  if (filename === undefined || filename === ":memory:" || filename === "") return db;
  return knexFactory({
    client: "better-sqlite3",
    connection: { filename },
    useNullAsDefault: true,
    compileSqlOnError: false,
    // A caller waits this long for the side connection at most (it is busy microseconds per call).
    acquireConnectionTimeout: 5000,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: Database.Database, done: (err: Error | null, conn: unknown) => void) {
        cacheStatements(conn);
        // A statement that writes fails as busy at once while the request connection holds a write.
        const prepare = conn.prepare.bind(conn);
        conn.prepare = ((sql: string) => {
          if (writeTransactionOpen(db) && !/^\s*(select|pragma)/i.test(sql))
            throw Object.assign(new Error("SQLITE_BUSY: a write transaction of this process holds the database"), { code: "SQLITE_BUSY" });
          return prepare(sql);
        }) as typeof conn.prepare;
        conn.pragma("foreign_keys = ON");
        // SQLite's default automatic checkpoint (1,000 pages) ran here, on the event loop: a rate-limit
        // count committed right after a bulk write's COMMIT, before the worker's checkpoint (50 ms
        // later), copied the whole log back and synced the file (4,826 pages measured). The worker
        // checkpoints; this connection only past the same safety net (src/db/checkpoint.ts).
        conn.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
        conn.pragma(`busy_timeout = ${FAIL_FAST_MS}`);
        conn.defaultSafeIntegers(true);
        done(null, conn);
      },
    },
  });
}
