/**
 * Previews bound to what they showed (issue 39, item 5; docs/decisions.md#preview-ids): a dry run of each
 * bulk write (update_transactions, import_transactions, save_rule applying a rule to the past,
 * undo_change) answers a preview_id; a commit passing it is refused with stale_preview when a row it
 * would touch changed since (or rows joined or left), writing nothing; a fresh preview's id commits; a
 * preview id of other arguments or an altered one is invalid_params; without preview_id nothing changes.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();

async function snapshot(db: Knex, userId: string) {
  const out: Record<string, string[]> = {};
  for (const table of ["transactions", "transaction_tags", "rules", "import_keys", "audit_log"]) {
    const rows = await db(table).where({ user_id: userId });
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])))).sort();
  }
  return out;
}

const CSV = ["date,amount,payee", "2026-03-02,-4.20,Bakery", "2026-03-03,-12.00,Cinema", "2026-03-04,-3.10,Kiosk"].join("\n");

describe(`stale previews (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  let giro: string;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" });
    me = await server.createUser({ timezone: "UTC" });
    giro = (await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id;
  });
  after(async () => server?.close());

  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: key(), ...params }, me.token);
  const refused = (tool: string, params: Record<string, unknown>) => server.callError(tool, { idempotency_key: key(), ...params }, me.token);
  const spend = async (payee: string, t: Record<string, unknown> = {}) =>
    (await call("create_transaction", { wallet_id: giro, direction: "expense", amount: "5.00", date: "2026-02-10", payee, ...t })).transaction;

  it("update_transactions: a row edited after the preview refuses the commit; a fresh preview commits; other arguments are invalid_params", async () => {
    const a = await spend("Starbucks");
    await spend("Starbucks");
    const args = { filter: {}, payee: "Starbucks", expected_count: 2, set_category: "Coffee" };
    const preview = await call("update_transactions", { ...args, dry_run: true });
    expect(preview.preview_id).to.be.a("string");
    // The same rows unchanged: the same preview id's digest (a second dry run binds the same rows).
    await call("update_transaction", { transaction_id: a.id, notes: "with a friend" });
    const before = await snapshot(server.db, me.id);
    const err = await refused("update_transactions", { ...args, preview_id: preview.preview_id });
    expect(err.data).to.deep.include({ code: "stale_preview", field: "preview_id", rows_then: 2, rows_now: 2 });
    expect(err.message).to.include("Nothing was changed");
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);

    // Another argument, an altered id: not this call's preview.
    const other = await refused("update_transactions", { ...args, set_category: "Cafés", preview_id: preview.preview_id });
    expect(other.data).to.deep.include({ code: "invalid_params", field: "preview_id" });
    const forged = await refused("update_transactions", { ...args, preview_id: `${preview.preview_id}x` });
    expect(forged.data).to.deep.include({ code: "invalid_params", field: "preview_id" });
    // Another person's preview id, for the same arguments: the same answer as a forged one, nothing written.
    const stranger = await server.createUser({ timezone: "UTC" });
    const theirs = await server.callError("update_transactions", { ...args, preview_id: preview.preview_id, idempotency_key: key() }, stranger.token);
    expect(theirs.data).to.deep.include({ code: "invalid_params", field: "preview_id" });
    expect(theirs.message).to.equal(forged.message);

    const fresh = await call("update_transactions", { ...args, dry_run: true });
    expect(fresh.preview_id).to.not.equal(preview.preview_id);
    const done = await call("update_transactions", { ...args, preview_id: fresh.preview_id });
    expect(done).to.deep.include({ status: "committed", changed: 2 });
  });

  it("update_transactions: a row that joins the selection after the preview is stale_preview, not written", async () => {
    await spend("Costa");
    const args = { filter: {}, payee: "Costa", expected_count: 1, add_tags: ["coffee"] };
    const preview = await call("update_transactions", { ...args, dry_run: true });
    await spend("Costa");
    const before = await snapshot(server.db, me.id);
    const err = await refused("update_transactions", { ...args, preview_id: preview.preview_id });
    expect(err.data).to.deep.include({ code: "stale_preview", rows_then: 1, rows_now: 2, changed_count: 1 });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
    // Without preview_id, as before: the count guards it (conflict).
    expect((await refused("update_transactions", args)).data).to.deep.include({ code: "conflict", transaction_count: 2 });
  });

  it("import_transactions: a row that became a duplicate since the preview refuses the commit; a fresh preview commits", async () => {
    const args = { wallet_id: giro, statement: CSV };
    const preview = await call("import_transactions", { ...args, dry_run: true });
    expect(preview.counts).to.deep.include({ new: 3 });
    // The person books the cinema by hand meanwhile: the import would now skip it.
    await spend("Cinema", { amount: "12.00", date: "2026-03-03" });
    const before = await snapshot(server.db, me.id);
    const err = await refused("import_transactions", { ...args, preview_id: preview.preview_id });
    expect(err.data).to.deep.include({ code: "stale_preview", field: "preview_id" });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
    const fresh = await call("import_transactions", { ...args, dry_run: true });
    const done = await call("import_transactions", { ...args, preview_id: fresh.preview_id });
    expect(done.status).to.equal("committed");
    expect(done.counts.new).to.equal(fresh.counts.new);
  });

  it("save_rule with apply_to_existing: a matching transaction added since the preview refuses the commit", async () => {
    await spend("LIDL Berlin");
    const args = { value: "lidl", set_category: "Groceries", apply_to_existing: true, expected_count: 1 };
    const preview = await call("save_rule", { ...args, dry_run: true });
    expect(preview.preview_id).to.be.a("string");
    await spend("Lidl Hamburg");
    const before = await snapshot(server.db, me.id);
    const err = await refused("save_rule", { ...args, preview_id: preview.preview_id });
    expect(err.data).to.deep.include({ code: "stale_preview", rows_then: 1, rows_now: 2 });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
    // A rule saved without apply_to_existing previews no rows: no preview id.
    expect((await call("save_rule", { value: "aldi", set_category: "Groceries", dry_run: true })).preview_id).to.equal(undefined);
    const fresh = await call("save_rule", { ...args, expected_count: 2, dry_run: true });
    const done = await call("save_rule", { ...args, expected_count: 2, preview_id: fresh.preview_id });
    expect(done.applied.count).to.equal(2);
  });

  it("undo_change: the preview is bound to the rows as they are; a retry with the same key replays", async () => {
    const edit = await call("update_transactions", { filter: {}, payee: "Kiosk", expected_count: 1, add_tags: ["snack"] });
    const preview = await call("undo_change", { audit_id: edit.audit_id, dry_run: true });
    expect(preview.preview_id).to.be.a("string");
    // Unchanged rows: the preview id commits, and a retry with the same key replays the answer.
    const k = key();
    const done = await server.call("undo_change", { audit_id: edit.audit_id, preview_id: preview.preview_id, idempotency_key: k }, me.token);
    expect(done.status).to.equal("committed");
    const again = await server.call("undo_change", { audit_id: edit.audit_id, preview_id: preview.preview_id, idempotency_key: k }, me.token);
    expect(again).to.deep.include({ status: "replayed", audit_id: done.audit_id });

    // A preview of undoing that undo, then the row it would touch is changed: stale.
    const redo = await call("undo_change", { audit_id: done.audit_id, dry_run: true });
    const row = await server.db("transactions").where({ user_id: me.id, payee: "Kiosk" }).first("id");
    await call("update_transaction", { transaction_id: row.id, notes: "changed meanwhile" });
    const before = await snapshot(server.db, me.id);
    const err = await refused("undo_change", { audit_id: done.audit_id, preview_id: redo.preview_id });
    expect(err.data).to.deep.include({ code: "stale_preview", field: "preview_id" });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
  });
});
