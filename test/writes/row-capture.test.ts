/**
 * The audit's row capture cannot be switched off by another process (issue 47): a migration run with
 * nothing to apply (every CLI command beside a live server) leaves the triggers in place, one that
 * applies migrations makes them again before it returns; a write whose capture is missing is refused
 * with `unavailable` and commits nothing, and capture is made whole again for its retry; /readyz reports
 * and repairs it; undo_change says truthfully why a change has no rows.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { migrateLatest, migratorConfig } from "../../src/db/migrate.js";
import { rowCaptureGaps } from "../../src/db/row-capture.js";

const key = () => randomUUID();

/** The capture triggers as the engine lists them (SQLite: three per table; Postgres: one, enabled). */
async function captureTriggers(db: Knex): Promise<number> {
  if (engine === "postgres") {
    const got = await db.raw(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE '%\\_audit\\_rows' AND tgenabled <> 'D'`);
    return Number(got.rows[0].n);
  }
  const rows = (await db("sqlite_master").where({ type: "trigger" }).select("name")) as { name: string }[];
  return rows.filter((r) => /_audit_rows_(insert|update|delete)$/.test(r.name)).length;
}

/** Switches the capture of transactions off, as another process could. */
async function switchOffCapture(db: Knex): Promise<void> {
  if (engine === "postgres") await db.raw("ALTER TABLE transactions DISABLE TRIGGER transactions_audit_rows");
  else await db.raw(`DROP TRIGGER IF EXISTS "transactions_audit_rows_insert"`);
}

describe(`row capture cannot be switched off (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  let wallet: string;
  before(async () => {
    server = await startTestServer();
    me = await server.createUser();
    wallet = (await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", idempotency_key: key() }, me.token)).wallet.id;
  });
  after(async () => server?.close());

  const spend = (k = key()) =>
    server.call("create_transaction", { wallet_id: wallet, amount: "4.20", direction: "expense", payee: "Cafe", idempotency_key: k }, me.token);
  const undoPreview = (auditId: string) => server.call("undo_change", { audit_id: auditId, idempotency_key: key(), dry_run: true }, me.token);

  it("a migration run with nothing to apply (a CLI command beside the server) leaves capture in place", async () => {
    const before = await captureTriggers(server.db);
    expect(before).to.be.greaterThan(0);
    await migrateLatest(server.db);
    expect(await captureTriggers(server.db)).to.equal(before);
    const made = await spend();
    const preview = await undoPreview(made.audit_id);
    expect(preview.rows.map((r: { id: string; action: string }) => [r.id, r.action])).to.deep.include([made.transaction.id, "delete"]);
  });

  it("a migration run that applies a migration makes capture again before it returns", async () => {
    const before = await captureTriggers(server.db);
    await server.db.migrate.down(migratorConfig);
    await migrateLatest(server.db);
    expect(await captureTriggers(server.db)).to.equal(before);
    expect(await rowCaptureGaps(server.db)).to.deep.equal([]);
  });

  it("a write whose capture is missing is refused with unavailable and commits nothing; its retry is captured", async () => {
    await switchOffCapture(server.db);
    const count = async () => ({
      transactions: Number((await server.db("transactions").where({ user_id: me.id }).count({ n: "*" }))[0]!.n),
      audit: Number((await server.db("audit_log").where({ user_id: me.id }).count({ n: "*" }))[0]!.n),
    });
    const was = await count();
    const k = key();
    const err = await server.callError(
      "create_transaction",
      { wallet_id: wallet, amount: "4.20", direction: "expense", payee: "Cafe", idempotency_key: k },
      me.token,
    );
    expect(err.code).to.equal(-32012);
    expect(err.data.retry_after_seconds, JSON.stringify(err)).to.equal(1);
    expect(err.message).to.match(/row capture .* was missing, so this write was refused and nothing was changed; it has been made whole again/);
    expect(await count()).to.deep.equal(was);
    // Made whole again by the refusal (no migration is pending): the retry commits with its rows.
    const made = await spend(k);
    expect(made.status).to.equal("committed");
    expect((await undoPreview(made.audit_id)).rows).to.have.length(1);
  });

  it("/readyz finds capture missing and makes it whole again", async () => {
    await switchOffCapture(server.db);
    expect(await rowCaptureGaps(server.db)).to.deep.equal(["transactions"]);
    await new Promise((r) => setTimeout(r, 1100)); // past the probes' shared check
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { checks: { capture: string } }).checks.capture).to.equal("ok");
    expect(await rowCaptureGaps(server.db)).to.deep.equal([]);
  });

  it("/readyz answers 503 naming capture while it is missing and cannot be made whole (a migration pending)", async () => {
    const [last] = await server.db("knex_migrations").orderBy("id", "desc").limit(1);
    await server.db("knex_migrations").where({ id: last.id }).delete();
    await switchOffCapture(server.db);
    try {
      await new Promise((r) => setTimeout(r, 1100));
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).to.equal(503);
      expect(((await res.json()) as { checks: { capture: string } }).checks.capture).to.equal("missing for 1 tables");
    } finally {
      await server.db("knex_migrations").insert(last);
    }
    await new Promise((r) => setTimeout(r, 1100));
    expect((await fetch(`${server.url}/readyz`)).status).to.equal(200);
  });

  it("undo_change says 'before undo existed' only for a change that was, and otherwise names the operator's fix", async () => {
    const made = await spend();
    await server.db("audit_rows").where({ user_id: me.id, audit_id: made.audit_id }).delete();
    const err = await server.callError("undo_change", { audit_id: made.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    expect(err.message).to.not.include("before undo existed");
    expect(err.message).to.include("committed while the server's row capture was off");
    expect(err.message).to.include("`finance-mcp migrate` or a restart");

    const old = await server.createUser();
    const first = await server.call("create_wallet", { name: "Old", type: "cash", currency: "USD", idempotency_key: key() }, old.token);
    await server.db("audit_rows").where({ user_id: old.id }).delete();
    // The change as if committed before the capture migration ran (the audit log itself is append-only).
    const capture = server.db("knex_migrations").where({ name: "20261125080102_add_audit_rows.js" });
    const [{ migration_time: ran }] = await capture.clone().select("migration_time");
    await capture.clone().update({ migration_time: new Date(Date.now() + 86_400_000) });
    try {
      const before = await server.callError("undo_change", { audit_id: first.audit_id, idempotency_key: key(), dry_run: true }, old.token);
      expect(before.message).to.include("it was recorded before undo existed on this server");
    } finally {
      await capture.clone().update({ migration_time: ran });
    }
  });
});
