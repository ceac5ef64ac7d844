/**
 * GET /healthz and GET /readyz: no token, no data; readiness follows the database, pending migrations,
 * the Postgres change listener and shutdown.
 */
import { expect } from "chai";
import { engine, withoutNewConnections } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`health and readiness (${engine})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: { host: "10.1.2.3:8080" } });
    return { status: res.status, body: (await res.json()) as any, cache: res.headers.get("cache-control") };
  };

  it("/healthz answers 200 without a token, whatever the Host", async () => {
    const r = await get("/healthz");
    expect(r).to.deep.equal({ status: 200, body: { status: "alive" }, cache: "no-store" });
  });

  it("/readyz answers 200 with each check's state and nothing else", async () => {
    const r = await get("/readyz");
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({
      status: "ready",
      checks: { database: "ok", migrations: "ok", capture: "ok", listener: engine === "postgres" ? "ok" : "not used", shutdown: "no" },
    });
  });

  // Probes within a second share one database check (so /readyz cannot load the database).
  const afterReuseWindow = () => new Promise((r) => setTimeout(r, 1100));

  it("/readyz answers 503 while a migration is pending, and 200 again once it has run", async () => {
    const [last] = await server.db("knex_migrations").orderBy("id", "desc").limit(1);
    await server.db("knex_migrations").where({ id: last.id }).delete();
    try {
      await afterReuseWindow();
      const r = await get("/readyz");
      expect(r.status).to.equal(503);
      expect(r.body.checks.migrations).to.equal("1 pending");
      expect(r.body.status).to.equal("not ready");
    } finally {
      await server.db("knex_migrations").insert(last);
    }
    await afterReuseWindow();
    expect((await get("/readyz")).status).to.equal(200);
  });

  it("/readyz answers 503 once shutdown has begun", async () => {
    server.services.lifecycle.draining = true;
    try {
      const r = await get("/readyz");
      expect(r.status).to.equal(503);
      expect(r.body.checks.shutdown).to.equal("draining");
      expect((await get("/healthz")).status).to.equal(200);
    } finally {
      server.services.lifecycle.draining = false;
    }
  });

  if (engine === "postgres") {
    it("/readyz answers 503 when the change listener's session is gone, and 200 once it is back", async () => {
      // The listener reconnects 100 ms after it is lost (src/events/bus.ts LISTEN_RETRY_FIRST_MS): a probe
      // later than that, on a loaded machine, found it back and never saw the 503. So it stays gone while the
      // probes run (withoutNewConnections); the database check keeps the pooled connection opened before, so
      // the 503 is the listener's alone.
      const database = new URL(server.database.url).pathname.slice(1);
      let seen: { status: number; body: any } | undefined;
      await server.db.raw("select 1");
      await withoutNewConnections(server.database.url, async (admin) => {
        const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'", [database]);
        expect(killed.rowCount).to.equal(1);
        for (let i = 0; i < 400 && seen?.status !== 503; i++) {
          seen = await get("/readyz");
          if (seen.status !== 503) await new Promise((r) => setTimeout(r, 25));
        }
        expect(seen!.status).to.equal(503);
        expect(seen!.body.checks).to.deep.include({ listener: "disconnected", database: "ok" });
      });
      for (let i = 0; i < 400 && seen?.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 25));
        seen = await get("/readyz");
      }
      expect(seen!.status, JSON.stringify(seen!.body)).to.equal(200);
    });
  }
});
