/**
 * A server process in long work still drains on SIGTERM (issue 51, "a server in long work still drains"):
 * an import at the bulk cap, or the undo of one, is in flight when the signal comes. The process stops
 * taking new connections at once, finishes the call in progress (its transaction commits or rolls back
 * whole), answers it, and exits 0 within SHUTDOWN_GRACE_SECONDS. Checked by counting the wallet's rows
 * against the answer: all of them or none, never part; never by a timed threshold.
 */
import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { expect } from "chai";
import { limits } from "../../generated/limits.js";
import Database from "better-sqlite3";
import type { Knex } from "knex";
import { sqliteFileOf } from "../../src/db/engine.js";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";

const CAP = limits.bulkWriteRows;
const GRACE_SECONDS = 120;

function statement(n: number): string {
  const lines = ["Date,Description,Amount"];
  for (let i = 0; i < n; i++)
    lines.push(`2026-${String((i % 10) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")},Shop ${i},-${(i % 500) + 1}.25`);
  return `${lines.join("\n")}\n`;
}

/** A tools/call on its own connection; `sent` resolves once the whole request is written. */
function longCall(server: ServerProcess, token: string, tool: string, args: Record<string, unknown>) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: tool, params: args });
  let sentResolve!: () => void;
  const sent = new Promise<void>((resolve) => (sentResolve = resolve));
  let answeredAt: number | undefined;
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request(
      server.mcpUrl,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${token}`,
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          answeredAt = Date.now();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        });
      },
    );
    req.on("error", reject);
    req.on("finish", sentResolve);
    req.end(body);
  });
  return { sent, answer, answered: () => answeredAt !== undefined };
}

/**
 * Whether another connection holds a write transaction on the transactions now: on SQLite, the write lock
 * (a BEGIN IMMEDIATE of our own is busy); on Postgres, a row-exclusive lock on the table. The signal is
 * sent only then, so it comes while the call's transaction is open, not while the statement is parsed.
 */
function writeInProgress(db: Knex, url: string): () => Promise<boolean> {
  const file = sqliteFileOf(url);
  if (file !== undefined)
    return async () => {
      const probe = new Database(file, { timeout: 0 });
      try {
        probe.exec("BEGIN IMMEDIATE");
        probe.exec("ROLLBACK");
        return false;
      } catch {
        return true;
      } finally {
        probe.close();
      }
    };
  return async () => {
    const found = await db.raw(
      "select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation where c.relname = 'transactions' and l.mode = 'RowExclusiveLock' and l.pid <> pg_backend_pid()",
    );
    return (found.rows[0] as { n: number }).n > 0;
  };
}

/**
 * A liveness probe on a new connection (no database work): "refused" once the listening socket is closed,
 * else its status; a probe left waiting past 250 ms counts as not refused.
 */
function probe(server: ServerProcess): Promise<"refused" | number> {
  return new Promise((resolve) => {
    const req = request(`${server.url}/healthz`, { agent: false, timeout: 250 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => {
      req.destroy();
      resolve(0);
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED" ? "refused" : 0));
    req.end();
  });
}

describe(`graceful shutdown during long work (${engine})`, function () {
  this.timeout(600_000);
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.drop());

  const start = () => startServerProcess(database.url, { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), RATE_LIMIT_MCP_PER_MINUTE: "1000000" });

  /** Signals SIGTERM while `call` runs, then checks what the brief asks of the drain; answers the call's answer. */
  async function signalDuring(server: ServerProcess, call: ReturnType<typeof longCall>, writing: () => Promise<boolean>) {
    await call.sent;
    for (let i = 0; i < 60_000 && !(await writing()) && !call.answered(); i++) await new Promise((r) => setTimeout(r, 2));
    expect(call.answered(), "the call was answered before its write transaction was seen").to.equal(false);
    server.child.kill("SIGTERM");
    // A new connection during the drain is refused while the long call is still running.
    let seen: "refused" | number = 0;
    for (let i = 0; i < 2000 && seen !== "refused" && !call.answered(); i++) {
      seen = await probe(server);
      if (seen !== "refused") await new Promise((r) => setTimeout(r, 5));
    }
    const stillRunning = !call.answered();
    expect(seen, "a new connection during the drain").to.equal("refused");
    expect(stillRunning, "the long call was still running when the new request was refused").to.equal(true);
    const answer = await call.answer;
    expect(answer.status).to.equal(200);
    expect(await server.exited, "exit code (0: drained within the grace period)").to.equal(0);
    return answer.body;
  }

  it(`an import of ${CAP.toLocaleString("en")} rows in flight: answered, all rows or none, exit 0`, async () => {
    const db = createDb(database.url);
    try {
      await migrateLatest(db);
      const user = await insertUserWithToken(db);
      const server = await start();
      try {
        const wallet = await callOver(server.mcpUrl, user.token, "create_wallet", {
          name: "Long",
          type: "checking",
          currency: "USD",
          idempotency_key: randomUUID(),
        });
        const walletId = wallet.body.result.wallet.id as string;
        const call = longCall(server, user.token, "import_transactions", { wallet_id: walletId, statement: statement(CAP), idempotency_key: randomUUID() });
        const body = await signalDuring(server, call, writeInProgress(db, database.url));
        const rows = (await db("transactions").where({ user_id: user.id, wallet_id: walletId }).select("id")).length;
        const result = body.result;
        if (result?.status === "committed") expect(rows).to.equal(CAP);
        else expect(rows, JSON.stringify(body).slice(0, 300)).to.equal(0);
      } finally {
        await server.stop();
      }
    } finally {
      await db.destroy();
    }
  });

  it(`the undo of an import of ${CAP.toLocaleString("en")} rows in flight: answered, undone whole or not at all, exit 0`, async () => {
    const db = createDb(database.url);
    try {
      await migrateLatest(db);
      const user = await insertUserWithToken(db);
      let walletId: string;
      let auditId: string;
      const first = await start();
      try {
        const wallet = await callOver(first.mcpUrl, user.token, "create_wallet", {
          name: "Undo",
          type: "checking",
          currency: "USD",
          idempotency_key: randomUUID(),
        });
        walletId = wallet.body.result.wallet.id as string;
        const imported = await callOver(first.mcpUrl, user.token, "import_transactions", {
          wallet_id: walletId,
          statement: statement(CAP),
          idempotency_key: randomUUID(),
        });
        expect(imported.body.result.counts.created).to.equal(CAP);
        auditId = imported.body.result.audit_id as string;
      } finally {
        await first.stop();
      }
      const server = await start();
      try {
        const call = longCall(server, user.token, "undo_change", { audit_id: auditId, idempotency_key: randomUUID() });
        const body = await signalDuring(server, call, writeInProgress(db, database.url));
        const rows = (await db("transactions").where({ user_id: user.id, wallet_id: walletId }).select("id")).length;
        const result = body.result;
        if (result?.status === "committed") expect(rows).to.equal(0);
        else expect(rows, JSON.stringify(body).slice(0, 300)).to.equal(CAP);
      } finally {
        await server.stop();
      }
    } finally {
      await db.destroy();
    }
  });
});
