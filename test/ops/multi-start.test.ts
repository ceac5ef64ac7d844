/**
 * A deploy behind a load balancer: several processes start at the same moment over one fresh Postgres.
 * All of them must come up ready (one migrates and seeds the knowledge base; the others wait for it)
 * and serve the same data. SQLite runs one process by design (docs/operations.md), so this is Postgres's.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";

describe(`several processes starting together on a fresh database (${engine})`, function () {
  this.timeout(120_000);
  if (engine !== "postgres") return;
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.drop());

  it("all become ready: one migrates and seeds, the others wait, and they serve the same data", async () => {
    const started = await Promise.allSettled([1, 2, 3, 4].map(() => startServerProcess(database.url)));
    const servers = started.filter((s): s is PromiseFulfilledResult<ServerProcess> => s.status === "fulfilled").map((s) => s.value);
    try {
      expect(started.map((s) => s.status)).to.deep.equal(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
      for (const s of servers) expect((await fetch(`${s.url}/readyz`)).status).to.equal(200);
      const db = createDb(database.url);
      let token: string;
      try {
        const kb = await db("kb_entries").count<{ n: unknown }[]>({ n: "*" }).first();
        expect(Number(kb?.n)).to.be.greaterThan(10);
        token = (await insertUserWithToken(db)).token;
      } finally {
        await db.destroy();
      }
      const created = await callOver(servers[0]!.mcpUrl, token, "create_wallet", {
        name: "Shared",
        type: "cash",
        currency: "EUR",
        idempotency_key: randomUUID(),
      });
      expect(created.status).to.equal(200);
      for (const s of servers) {
        const listed = await callOver(s.mcpUrl, token, "list_wallets", {});
        expect(listed.body.result.wallets.map((w: { name: string }) => w.name)).to.deep.equal(["Shared"]);
      }
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});
