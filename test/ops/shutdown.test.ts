/**
 * Graceful shutdown of a real server process (src/serve.ts): SIGTERM during a burst of writes. Every
 * acknowledged write is stored exactly once; every write without an answer is stored once or not at all;
 * an open SSE stream is told to reconnect (`retry:`) and ended; the process exits 0 within the grace period.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess } from "../helpers/process.js";

const WORKERS = 8;
const MAX_WRITES = 600;
const SIGNAL_AFTER_ACKS = 40;

describe(`graceful shutdown under a write burst (${engine})`, function () {
  this.timeout(90_000);
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.drop());

  it("SIGTERM: acknowledged writes stored once, unanswered ones once or never, SSE told to reconnect, exit 0", async () => {
    const db = createDb(database.url);
    try {
      await migrateLatest(db);
      const user = await insertUserWithToken(db);
      const server = await startServerProcess(database.url, {
        SHUTDOWN_GRACE_SECONDS: "20",
        RATE_LIMIT_MCP_PER_MINUTE: "1000000",
        RATE_LIMIT_SSE_PER_MINUTE: "1000",
      });
      const wallet = await callOver(server.mcpUrl, user.token, "create_wallet", {
        name: "Burst",
        type: "checking",
        currency: "USD",
        idempotency_key: randomUUID(),
      });
      expect(wallet.status).to.equal(200);
      const walletId = wallet.body.result.wallet.id as string;

      // An SSE stream, read until the server ends it.
      const sse = await fetch(`${server.url}/api/v1/mcp/sse`, { headers: { authorization: `Bearer ${user.token}`, accept: "text/event-stream" } });
      expect(sse.status).to.equal(200);
      const sseText = sse.text();

      const acked: string[] = [];
      const unanswered: string[] = [];
      let started = 0;
      let signalled = false;
      let inFlightAtSignal = 0;
      let inFlight = 0;
      const exitedAt = server.exited.then((code) => ({ code }));

      const worker = async () => {
        let refusedInARow = 0;
        while (started < MAX_WRITES && refusedInARow < 3) {
          const label = `burst-${started++}`;
          inFlight++;
          try {
            const r = await callOver(server.mcpUrl, user.token, "create_transaction", {
              wallet_id: walletId,
              amount: "1.00",
              direction: "expense",
              description: label,
              idempotency_key: randomUUID(),
            });
            if (r.status === 200 && r.body?.result?.status === "committed") acked.push(label);
            else unanswered.push(label);
            refusedInARow = 0;
          } catch {
            unanswered.push(label); // connection refused or cut: no answer
            if (signalled) refusedInARow++;
          } finally {
            inFlight--;
          }
          if (!signalled && acked.length >= SIGNAL_AFTER_ACKS) {
            signalled = true;
            inFlightAtSignal = inFlight;
            server.child.kill("SIGTERM");
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      const exit = await exitedAt;

      expect(signalled, "the signal was sent during the burst").to.equal(true);
      expect(inFlightAtSignal, "writes were in flight when the signal came").to.be.greaterThan(0);
      expect(exit.code, "every request finished within the grace period").to.equal(0);

      const rows = await db("transactions").where({ wallet_id: walletId }).select("description");
      const stored = new Map<string, number>();
      for (const r of rows) stored.set(r.description, (stored.get(r.description) ?? 0) + 1);
      for (const label of acked) expect(stored.get(label), `${label} was acknowledged`).to.equal(1);
      for (const label of unanswered) expect(stored.get(label) ?? 0, `${label} had no answer`).to.be.at.most(1);
      expect(rows.length).to.be.at.least(acked.length);
      expect(rows.length).to.be.at.most(acked.length + unanswered.length);
      // Every stored write is whole: its audit row and its idempotency key were committed with it.
      const audited = await db("audit_log").where({ user_id: user.id, tool: "create_transaction" }).count<{ n: unknown }[]>({ n: "*" }).first();
      expect(Number(audited?.n)).to.equal(rows.length);
      if (process.env.SHUTDOWN_TEST_VERBOSE) console.log({ acked: acked.length, unanswered: unanswered.length, stored: rows.length, inFlightAtSignal });

      const text = await sseText;
      expect(text).to.match(/^event: endpoint\n/);
      expect(text).to.match(/retry: 1000\n\n$/);
    } finally {
      await db.destroy();
    }
  });
});
