/**
 * docs/decisions.md, "Faults and hostile input": two server processes on one SQLite file failed a third of their writes with
 * internal_error (SQLITE_BUSY, which knex's error formatting turned into "str.replace is not a function"
 * when a binding was a BigInt), and nothing stopped a second `npm start` on the same file.
 * Now a second server process refuses to start, naming the file and the process holding it; the lock
 * dies with its process (kill -9 included); and SQLITE_BUSY reaching a call is the retryable
 * `unavailable` (HTTP 503 with Retry-After), after which the same call with the same key commits once.
 */
import { expect } from "chai";
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { engine, createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { sqlitePath } from "../../src/db/knex.js";
import { BUSY_TIMEOUT_MS, FAIL_FAST_MS, RECOVER_MS } from "../../src/db/sqlite-busy.js";

/** Starts a server process expected to refuse: its exit code and stderr, within 20 s. */
function startRefused(databaseUrl: string): Promise<{ code: number | null; stderr: string }> {
  const entry = fileURLToPath(new URL("../helpers/serve-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, LOG_LEVEL: "silent", DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

(engine === "sqlite" ? describe : describe.skip)("faults: one server process per SQLite file (sqlite)", function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let first: ServerProcess | undefined;

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await first?.stop();
    await database.drop();
  });

  it("refuses a second server process on the same file, naming the file and the holder's pid", async () => {
    first = await startServerProcess(database.url);
    const refused = await startRefused(database.url);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(sqlitePath(database.url));
    expect(refused.stderr).to.include(`process ${first.child.pid}`);
    // The first one still serves.
    const res = await fetch(`${first.url}/healthz`);
    expect(res.status).to.equal(200);
  });

  it("leaves no stale lock after kill -9: the next process starts", async () => {
    first!.child.kill("SIGKILL");
    await first!.exited;
    first = await startServerProcess(database.url);
    expect((await fetch(`${first.url}/healthz`)).status).to.equal(200);
  });
});

(engine === "sqlite" ? describe : describe.skip)("faults: SQLITE_BUSY is the retryable unavailable (sqlite)", function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it("answers a write that waited out busy_timeout with unavailable (503, Retry-After), and the retry with the same key commits once", async () => {
    const u = await server.createUser();
    const wallet = (await server.call("create_wallet", { name: "W", type: "cash", currency: "USD", idempotency_key: randomUUID() }, u.token)).wallet;
    // Another connection (as another process would) holds the write lock.
    const other = new Database(sqlitePath(server.database.url));
    other.exec("BEGIN IMMEDIATE; INSERT INTO knex_migrations_lock (is_locked) SELECT 0 WHERE 0;");
    const key = randomUUID();
    // A BigInt binding (the amount in minor units) is what made knex's message formatting throw.
    const params = { wallet_id: wallet.id, direction: "expense", amount: "12.34", idempotency_key: key };
    let busy;
    try {
      busy = await server.rpc({ jsonrpc: "2.0", id: 1, method: "create_transaction", params }, u.token);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(busy.status).to.equal(503);
    expect(busy.body.error.data).to.include({ code: "unavailable", retryable: true });
    expect(busy.headers.get("retry-after")).to.equal(String(busy.body.error.data.retry_after_seconds));
    expect(busy.body.error.message).to.match(/same idempotency_key/);
    const retried = await server.call("create_transaction", params, u.token);
    expect(retried.status).to.equal("committed");
    const again = await server.call("create_transaction", params, u.token);
    expect(again.status).to.equal("replayed");
    expect(await server.db("transactions").where({ wallet_id: wallet.id }).count({ n: "*" })).to.deep.equal([{ n: 1n }]);
  });

  it("while the lock stays held, answers 20 writes at once with unavailable, failing fast after the first full wait, and waits fully again once it is free", async () => {
    const u = await server.createUser();
    const wallet = (await server.call("create_wallet", { name: "W2", type: "cash", currency: "USD", idempotency_key: randomUUID() }, u.token)).wallet;
    const busyTimeout = async () => Number(((await server.db.raw("PRAGMA busy_timeout")) as Array<Record<string, unknown>>)[0]!.timeout);
    // The test before left the lock's fail-fast on: it ends RECOVER_MS after the last busy statement.
    await new Promise((r) => setTimeout(r, RECOVER_MS + 200));
    expect(await busyTimeout()).to.equal(BUSY_TIMEOUT_MS);
    const other = new Database(sqlitePath(server.database.url));
    other.exec("BEGIN IMMEDIATE; INSERT INTO knex_migrations_lock (is_locked) SELECT 0 WHERE 0;");
    let answers: Array<{ status: number; body: any; headers: Headers } | string>;
    try {
      answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          server
            .rpc(
              {
                jsonrpc: "2.0",
                id: 1,
                method: "create_transaction",
                params: { wallet_id: wallet.id, direction: "expense", amount: "1.00", idempotency_key: randomUUID() },
              },
              u.token,
            )
            .catch((err: unknown) => `no answer: ${String((err as { cause?: { code?: string } }).cause?.code ?? err)}`),
        ),
      );
      // Every later statement waits FAIL_FAST_MS, not the full busy_timeout, while the lock stays held.
      expect(await busyTimeout()).to.equal(FAIL_FAST_MS);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    for (const a of answers) {
      expect(a, "an answer, not a reset").not.to.be.a("string");
      if (typeof a === "string") continue;
      expect(a.status).to.equal(503);
      expect(a.body.error.data).to.include({ code: "unavailable", retryable: true });
      expect(a.headers.get("retry-after")).to.be.a("string");
    }
    await new Promise((r) => setTimeout(r, RECOVER_MS + 200));
    expect(await busyTimeout()).to.equal(BUSY_TIMEOUT_MS);
    expect(
      (await server.call("create_transaction", { wallet_id: wallet.id, direction: "expense", amount: "1.00", idempotency_key: randomUUID() }, u.token)).status,
    ).to.equal("committed");
  });
});
