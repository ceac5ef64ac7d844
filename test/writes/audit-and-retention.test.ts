/**
 * Pins the audit CLI (a user's entries, newest first, no secrets) and the retention of idempotency keys
 * (kept IDEMPOTENCY_RETENTION_HOURS, then purged, after which the key is free again).
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { purgeExpiredKeys } from "../../src/writes/idempotency.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`audit CLI and idempotency-key retention (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer({ IDEMPOTENCY_RETENTION_HOURS: "2" });
    user = await server.createUser();
  });
  after(async () => server.close());

  it("prints a user's audit entries newest first, without secrets", async () => {
    const other = await server.createUser();
    await server.call("create_wallet", { name: "Other's", type: "cash", currency: "USD", idempotency_key: randomUUID() }, other.token);
    const first = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "USD", idempotency_key: randomUUID() }, user.token);
    const second = await server.call("update_wallet", { wallet_id: first.wallet.id, notes: "jar", idempotency_key: randomUUID() }, user.token);
    const run = spawnSync(process.execPath, ["bin/finance-mcp.js", "audit", "--email", user.email, "--limit", "10"], {
      env: { ...process.env, DATABASE_URL: server.database.url, LOG_LEVEL: "silent" },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).to.equal(0);
    const entries = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.id, e.tool, e.action])).to.deep.equal([
      [second.audit_id, "update_wallet", "update"],
      [first.audit_id, "create_wallet", "create"],
    ]);
    expect(entries[0].before.notes).to.equal(null);
    expect(entries[0].after.notes).to.equal("jar");
    expect(run.stdout).not.to.contain(user.token);
    expect(run.stdout).not.to.match(/fmcp_|password|token_hash/);
  });

  it("keeps keys for the configured hours, then purges them and the key is free again", async () => {
    const key = randomUUID();
    const created = await server.call("create_wallet", { name: "Kept", type: "cash", currency: "USD", idempotency_key: key }, user.token);
    const row = await server.db("idempotency_keys").where({ user_id: user.id, key }).first();
    const hours = (Date.parse(row.expires_at) - Date.parse(row.created_at)) / 3_600_000;
    expect(hours).to.equal(2);

    const reused = await server.callError("create_wallet", { name: "Other name", type: "cash", currency: "USD", idempotency_key: key }, user.token);
    expect(reused.data.code).to.equal("idempotency_key_reused");

    expect(await purgeExpiredKeys(server.db, new Date(Date.parse(row.created_at) + 3_600_000))).to.equal(0);
    const purged = await purgeExpiredKeys(server.db, new Date(Date.parse(row.expires_at) + 1000));
    expect(purged).to.be.at.least(1);
    expect(await server.db("idempotency_keys").where({ user_id: user.id, key }).first()).to.equal(undefined);

    const fresh = await server.call("create_wallet", { name: "Other name", type: "cash", currency: "USD", idempotency_key: key }, user.token);
    expect(fresh.status).to.equal("committed");
    expect(fresh.wallet.id).not.to.equal(created.wallet.id);
  });
});
