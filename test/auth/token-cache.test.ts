/**
 * Verified tokens cached in the process (src/auth/token-cache.ts), on a real Postgres with a real change
 * bus: a cached token costs no query; a revocation, a scope or expiry change and a change of the user's
 * time zone reach the cache through NOTIFY (migration 20261125160000); while the LISTEN session is down
 * the cache is bypassed, so a revocation made then is refused at once; nothing cached before the outage
 * is used after it. The two-process case (a revoke on one process refuses the next call on another) is in
 * test/limits/rate-limits.test.ts. On SQLite there is no cache: the services make none, and every call
 * reads the token.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { authenticateBearer, revokeToken } from "../../src/auth/tokens.js";
import { createTokenCache, type TokenCache } from "../../src/auth/token-cache.js";
import { createChangeBus, type ChangeBus } from "../../src/events/bus.js";
import { createDb } from "../../src/db/knex.js";
import { migratedTestDatabase, engine, withoutNewConnections, type TestDatabase } from "../helpers/database.js";
import { insertUserWithToken } from "../helpers/direct-user.js";
import { startTestServer } from "../helpers/server.js";

const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe(`token cache (${engine})`, function () {
  this.timeout(60_000);

  if (engine === "sqlite") {
    it("is off on SQLite: a revoked token is refused at the next call", async () => {
      const server = await startTestServer();
      try {
        expect(server.services.tokenCache).to.equal(undefined);
        const user = await server.createUser();
        expect((await server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, user.token)).status).to.equal(200);
        await server.db("mcp_tokens").where({ user_id: user.id }).update({ revoked_at: new Date().toISOString() });
        expect((await server.rpc({ jsonrpc: "2.0", id: 2, method: "whoami" }, user.token)).status).to.equal(401);
      } finally {
        await server.close();
      }
    });
    return;
  }

  let database: TestDatabase;
  let db: Knex;
  let bus: ChangeBus;
  let cache: TokenCache;
  let queries = 0;

  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    bus = await createChangeBus(db);
    cache = createTokenCache(bus);
    db.on("query", () => queries++);
  });
  after(async () => {
    cache?.close();
    await bus?.close();
    await db?.destroy();
    await database?.drop();
  });

  const auth = (token: string) => authenticateBearer(db, `Bearer ${token}`, "", new Date(), undefined, cache);
  const refused = async (token: string) => {
    try {
      await auth(token);
      return false;
    } catch (err) {
      return (err as { errorName?: string }).errorName === "unauthorized";
    }
  };
  const notified = async (change: () => Promise<unknown>) => {
    const before = cache.stats().invalidations;
    await change();
    await until(() => cache.stats().invalidations > before, "the NOTIFY of the change");
  };

  it("answers a token it verified without a query", async () => {
    const user = await insertUserWithToken(db);
    await auth(user.token);
    const before = queries;
    const caller = await auth(user.token);
    expect(queries - before, "queries for a cached token").to.equal(0);
    expect(caller.userId).to.equal(user.id);
    expect(cache.stats().hits).to.be.greaterThan(0);
  });

  it("drops the user's tokens on a revocation, a scope change, an expiry change and a time zone change", async () => {
    const user = await insertUserWithToken(db);
    const tokens = db("mcp_tokens").where({ user_id: user.id });
    expect((await auth(user.token)).scopes.size).to.be.greaterThan(1);

    await notified(() => tokens.clone().update({ scopes: JSON.stringify(["meta:whoami"]) }));
    expect([...(await auth(user.token)).scopes]).to.deep.equal(["meta:whoami"]);

    await notified(() => db("users").where({ id: user.id }).update({ timezone: "Europe/Berlin" }));
    expect((await auth(user.token)).timezone).to.equal("Europe/Berlin");

    await notified(() => tokens.clone().update({ expires_at: new Date(Date.now() - 1000).toISOString() }));
    expect(await refused(user.token)).to.equal(true);

    const other = await insertUserWithToken(db);
    await auth(other.token);
    await notified(() => db("mcp_tokens").where({ user_id: other.id }).update({ revoked_at: new Date().toISOString() }));
    expect(await refused(other.token)).to.equal(true);
  });

  it("a change made by this process empties its cache as the statement starts, without waiting for the NOTIFY", async () => {
    // A bus that never delivers a NOTIFY: only the local path can drop the entry.
    const deaf = { listening: () => true, epoch: () => 1, onTokensChanged: () => () => undefined };
    const local = createTokenCache(deaf, { db });
    try {
      const user = await insertUserWithToken(db);
      const viaLocal = (token: string) => authenticateBearer(db, `Bearer ${token}`, "", new Date(), undefined, local);
      await viaLocal(user.token);
      await viaLocal(user.token);
      expect(local.stats().hits).to.equal(1);
      const [row] = (await db("mcp_tokens").where({ user_id: user.id }).select("id")) as { id: string }[];
      expect(await revokeToken(db, user.id, row!.id)).to.equal(true);
      let error: unknown;
      await viaLocal(user.token).catch((err: unknown) => (error = err));
      expect((error as { errorName?: string } | undefined)?.errorName).to.equal("unauthorized");
    } finally {
      local.close();
    }
  });

  it("while the LISTEN session is down the cache is bypassed, and nothing cached before is used after", async () => {
    const user = await insertUserWithToken(db);
    await auth(user.token);
    await auth(user.token); // cached
    const name = new URL(database.url).pathname.slice(1);
    const pids = (await db.raw("SELECT pid FROM pg_stat_activity WHERE datname = ? AND query ILIKE 'LISTEN %'", [name])).rows as { pid: number }[];
    expect(pids.length).to.equal(1);
    // The session stays gone until the checks are done (withoutNewConnections: the bus retries after 100 ms).
    await withoutNewConnections(database.url, async (admin) => {
      await admin.query("SELECT pg_terminate_backend($1)", [pids[0]!.pid]);
      await until(() => !bus.listening(), "the bus to notice its session is gone");
      // Revoked while no NOTIFY can arrive: the next call reads the database.
      await db("mcp_tokens").where({ user_id: user.id }).update({ revoked_at: new Date().toISOString() });
      expect(await refused(user.token)).to.equal(true);
    });
    await until(() => bus.listening(), "the bus to listen again");
    expect(await refused(user.token)).to.equal(true);

    // A token cached before an outage is read again after it.
    const second = await insertUserWithToken(db);
    await auth(second.token);
    const pids2 = (await db.raw("SELECT pid FROM pg_stat_activity WHERE datname = ? AND query ILIKE 'LISTEN %'", [name])).rows as { pid: number }[];
    await withoutNewConnections(database.url, async (admin) => {
      await admin.query("SELECT pg_terminate_backend($1)", [pids2[0]!.pid]);
      await until(() => !bus.listening(), "the bus to notice its session is gone");
    });
    await until(() => bus.listening(), "the bus to listen again");
    const before = queries;
    await auth(second.token);
    expect(queries - before, "read again after the outage").to.be.greaterThan(0);
  });
});
