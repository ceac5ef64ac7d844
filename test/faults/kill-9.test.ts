/**
 * `kill -9` of a server process during a write burst (docs/reliability.md), on both engines: after a
 * new process starts over the same database, every acknowledged write is stored exactly once, every write
 * without an answer is stored once or not at all (never half: its ledger row, wallet totals and audit row
 * agree), and retrying the unanswered ones with their keys stores each exactly once.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Knex } from "knex";
import { createDb } from "../../src/db/knex.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess } from "../helpers/process.js";

const WORKERS = 6;
const MAX_WRITES = 400;
const KILL_AFTER_ACKS = 60;

describe(`faults: kill -9 during a write burst (${engine})`, function () {
  this.timeout(90_000);
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

  it("keeps every acknowledged write once and no unanswered write half-done, across a restart", async () => {
    const env = { RATE_LIMIT_MCP_PER_MINUTE: "1000000" };
    const user = await insertUserWithToken(db);
    let server = await startServerProcess(database.url, env);
    const wallet = await callOver(server.mcpUrl, user.token, "create_wallet", { name: "Kill", type: "cash", currency: "USD", idempotency_key: randomUUID() });
    const walletId = wallet.body.result.wallet.id as string;
    const write = (url: string, key: string) =>
      callOver(url, user.token, "create_transaction", { wallet_id: walletId, direction: "expense", amount: "1.00", description: key, idempotency_key: key });

    const acked = new Set<string>();
    const unanswered = new Set<string>();
    let started = 0;
    let killed = false;
    const worker = async () => {
      while (started < MAX_WRITES && !killed) {
        started++;
        const key = randomUUID();
        try {
          const r = await write(server.mcpUrl, key);
          if (r.status === 200 && r.body.result) acked.add(key);
          else unanswered.add(key);
        } catch {
          unanswered.add(key); // the connection died with the process
        }
        if (acked.size >= KILL_AFTER_ACKS && !killed) {
          killed = true;
          server.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    expect(await server.exited).to.equal(null); // killed by the signal, no exit code
    expect(acked.size).to.be.at.least(KILL_AFTER_ACKS);

    server = await startServerProcess(database.url, env);
    try {
      const stored = await db("transactions").where({ wallet_id: walletId }).select("description");
      const counts = new Map<string, number>();
      for (const row of stored) counts.set(row.description, (counts.get(row.description) ?? 0) + 1);
      for (const key of acked) expect(counts.get(key), `acknowledged ${key}`).to.equal(1);
      for (const key of unanswered) expect(counts.get(key) ?? 0, `unanswered ${key}`).to.be.at.most(1);
      expect([...counts.keys()].every((k) => acked.has(k) || unanswered.has(k))).to.equal(true);

      // Never half: each stored write has its audit row, and the wallet's balance is the sum of its rows.
      const audited = await db("audit_log").where({ user_id: user.id, tool: "create_transaction" }).count({ n: "*" }).first();
      expect(Number(audited!.n)).to.equal(stored.length);
      const balance = await callOver(server.mcpUrl, user.token, "get_wallet_balance", { wallet_id: walletId });
      expect(JSON.stringify(balance.body.result)).to.include(`-${stored.length}.00`);

      // The unanswered ones, retried with their keys, end up stored exactly once each.
      if (process.env.FAULT_FIGURES)
        console.log(
          JSON.stringify({
            kill9: {
              engine,
              acked: acked.size,
              unanswered: unanswered.size,
              unanswered_stored: [...unanswered].filter((k) => counts.has(k)).length,
              stored: stored.length,
            },
          }),
        );
      for (const key of unanswered) expect((await write(server.mcpUrl, key)).status).to.equal(200);
      const after = await db("transactions").where({ wallet_id: walletId }).count({ n: "*" }).first();
      expect(Number(after!.n)).to.equal(acked.size + unanswered.size);
    } finally {
      await server.stop();
    }
  });
});
