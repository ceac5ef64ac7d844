/**
 * A database outage under a write burst (docs/reliability.md): every backend of this test's database is
 * terminated (pg_terminate_backend, as a Postgres restart would cut them; never a cluster restart) while
 * a real server process takes writes. No call may be answered internal_error or claim that nothing was
 * changed: each is a success, or `unavailable` (HTTP 503 with Retry-After, retryable). Retried with the
 * same key, every write then commits exactly once, and the server recovers without a restart.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";

const WORKERS = 6;
const WRITES = 240;
const KILL_AFTER = 40;

describe(`faults: a database outage during a write burst (${engine})`, function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let db: Knex;
  let server: ServerProcess;

  before(async function () {
    if (engine !== "postgres") return this.skip(); // SQLite is a file: no connection to lose
    database = await migratedTestDatabase();
    db = createDb(database.url);
    server = await startServerProcess(database.url, { RATE_LIMIT_MCP_PER_MINUTE: "1000000", LOG_LEVEL: "error" }, { logs: true });
  });
  after(async () => {
    await server?.stop();
    await db?.destroy();
    await database?.drop();
  });

  it("answers each write with success or a retryable 503, and every write commits once when retried with its key", async () => {
    const user = await insertUserWithToken(db);
    const created = await callOver(server.mcpUrl, user.token, "create_wallet", {
      name: "Outage",
      type: "cash",
      currency: "USD",
      idempotency_key: randomUUID(),
    });
    const walletId = created.body.result.wallet.id as string;
    const name = new URL(database.url).pathname.slice(1);
    const killAll = async () => {
      // Our own connection is cut too; knex's pool replaces it on the next query.
      const r = await db.raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()", [name]);
      return r.rows.length as number;
    };

    const keys = Array.from({ length: WRITES }, () => randomUUID());
    const outcomes: { status: number; code?: string; retryAfter: string | null; message?: string }[] = [];
    let next = 0;
    let acked = 0;
    let killed = 0;
    const worker = async () => {
      while (next < WRITES) {
        const key = keys[next++]!;
        const r = await callOver(server.mcpUrl, user.token, "create_transaction", {
          wallet_id: walletId,
          direction: "expense",
          amount: "1.00",
          description: key,
          idempotency_key: key,
        });
        const error = r.body?.error ?? (r.body?.result?.isError ? r.body.result.structuredContent : undefined);
        outcomes.push({ status: r.status, code: error?.data?.code, retryAfter: r.headers.get("retry-after"), message: error?.message });
        if (r.status === 200 && !error) acked++;
        if (acked === KILL_AFTER && !killed) killed = await killAll();
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    expect(killed, "backends terminated mid-burst").to.be.greaterThan(0);

    const failures = outcomes.filter((o) => o.status !== 200);
    if (process.env.FAULT_FIGURES)
      console.log(
        JSON.stringify({
          outage: { writes: WRITES, backends_killed: killed, answered_ok: outcomes.length - failures.length, unavailable_503: failures.length },
        }),
      );
    for (const f of failures) {
      expect(
        f,
        `${JSON.stringify(f)}\n${server.logs
          .filter((l) => l.includes("unhandled_error"))
          .slice(0, 3)
          .join("\n")}`,
      ).to.include({ status: 503, code: "unavailable" });
      expect(Number(f.retryAfter), "Retry-After").to.be.greaterThan(0);
      expect(f.message).to.not.match(/nothing was changed/i);
    }

    // Retried with the same keys (all of them: a replay of a committed one is harmless), all commit once.
    for (const key of keys) {
      let r = await callOver(server.mcpUrl, user.token, "create_transaction", {
        wallet_id: walletId,
        direction: "expense",
        amount: "1.00",
        description: key,
        idempotency_key: key,
      });
      for (let i = 0; i < 20 && r.status === 503; i++) {
        await new Promise((res) => setTimeout(res, 250));
        r = await callOver(server.mcpUrl, user.token, "create_transaction", {
          wallet_id: walletId,
          direction: "expense",
          amount: "1.00",
          description: key,
          idempotency_key: key,
        });
      }
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    }
    const rows = await db("transactions").where({ wallet_id: walletId }).select("description");
    expect(rows.length).to.equal(WRITES);
    expect(new Set(rows.map((row) => row.description)).size).to.equal(WRITES);
  });
});
