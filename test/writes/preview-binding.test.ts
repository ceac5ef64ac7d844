/**
 * One dry run, one commit, for every bulk write (issue 52 item 2, issue 49 item 6, issue 51 items 6–7;
 * docs/decisions.md#preview-ids): a preview binds only the arguments that decide what is written (not
 * rows_limit, not expected_count, which save_rule's dry run cannot carry), and a commit's expected_count is
 * checked against the preview's count. A preview id commits once (an undo that restores its rows does
 * not make it commit again) and for PREVIEW_TTL_MS.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { PREVIEW_TTL_MS } from "../../src/writes/preview.js";

const key = () => randomUUID();
const CSV = ["date,amount,payee", "2026-03-02,-4.20,Bakery", "2026-03-03,-12.00,Cinema", "2026-03-04,-3.10,Kiosk"].join("\n");

describe(`previews: one dry run, one commit (${engine})`, function () {
  this.timeout(120_000);
  let now = Date.parse("2026-06-01T10:00:00Z");
  let server: TestServer;
  let me: TestUser;
  let giro: string;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" }, { now: () => new Date(now) });
    me = await server.createUser({ timezone: "UTC" });
    giro = (await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id;
  });
  after(async () => server?.close());

  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: key(), ...params }, me.token);
  const refused = (tool: string, params: Record<string, unknown>) => server.callError(tool, { idempotency_key: key(), ...params }, me.token);
  const spend = async (payee: string, amount = "5.00") =>
    (await call("create_transaction", { wallet_id: giro, direction: "expense", amount, date: "2026-02-10", payee })).transaction;
  const categoryOf = async (id: string) => (await server.db("transactions").where({ id }).first("category")).category as string | null;

  it("update_transactions: dry run, then commit with its preview_id and expected_count; another expected_count is a conflict naming the preview's", async () => {
    const a = await spend("Bean Bar");
    await spend("Bean Bar");
    const args = { filter: {}, payee: "Bean Bar", expected_count: 2, set_category: "Coffee" };
    const preview = await call("update_transactions", { ...args, dry_run: true });
    const wrong = await refused("update_transactions", { ...args, expected_count: 3, preview_id: preview.preview_id });
    expect(wrong.data).to.deep.include({ code: "conflict", field: "expected_count", expected: "2" });
    expect(wrong.message).to.include("preview showed 2, not 3").and.include("nothing was changed");
    expect(await categoryOf(a.id)).to.equal(null);
    const done = await call("update_transactions", { ...args, preview_id: preview.preview_id });
    expect(done).to.deep.include({ status: "committed", changed: 2 });
  });

  it("save_rule on the past: the documented flow (dry run without expected_count, commit with applied.count and the preview_id) commits", async () => {
    const a = await spend("Penny Market");
    await spend("Penny Berlin");
    const args = { value: "penny", set_category: "Groceries", apply_to_existing: true };
    const preview = await call("save_rule", { ...args, dry_run: true });
    expect(preview.applied.count).to.equal(2);
    expect(preview.preview_id).to.be.a("string");
    const wrong = await refused("save_rule", { ...args, expected_count: 1, preview_id: preview.preview_id });
    expect(wrong.data).to.deep.include({ code: "conflict", field: "expected_count", expected: "2" });
    const done = await call("save_rule", { ...args, expected_count: preview.applied.count, preview_id: preview.preview_id });
    expect(done.status).to.equal("committed");
    expect(done.applied.count).to.equal(2);
    expect(await categoryOf(a.id)).to.equal("Groceries");
  });

  it("save_rule replacing a rule: expected_count is the transactions' count, the replaced rule not counted", async () => {
    await spend("Netto City");
    const saved = await call("save_rule", { value: "netto", set_category: "Food" });
    const args = { rule_id: saved.rule.id, value: "netto", set_category: "Groceries", apply_to_existing: true };
    const preview = await call("save_rule", { ...args, dry_run: true });
    expect(preview.applied.count).to.equal(1);
    const done = await call("save_rule", { ...args, expected_count: 1, preview_id: preview.preview_id });
    expect(done.applied.count).to.equal(1);
  });

  it("import_transactions: a preview listing 1 row commits with rows_limit 200 (rows_limit changes no row)", async () => {
    const wallet = (await call("create_wallet", { name: "Import", type: "checking", currency: "EUR" })).wallet.id;
    const preview = await call("import_transactions", { wallet_id: wallet, statement: CSV, rows_limit: 1, dry_run: true });
    expect(preview.counts).to.include({ to_create: 3 });
    const done = await call("import_transactions", { wallet_id: wallet, statement: CSV, rows_limit: 200, preview_id: preview.preview_id });
    expect(done.status).to.equal("committed");
    expect(done.counts.created).to.equal(3);
    // What decides the rows stays bound: another statement is not this preview's call.
    const other = await refused("import_transactions", { wallet_id: wallet, statement: `${CSV}\n2026-03-05,-1.00,Extra`, preview_id: preview.preview_id });
    expect(other.data).to.deep.include({ code: "invalid_params", field: "preview_id" });
  });

  it("import_transactions: the possible duplicates the person picks from the preview commit with its preview_id (import_rows after the dry run)", async () => {
    const wallet = (await call("create_wallet", { name: "Picked", type: "checking", currency: "EUR" })).wallet.id;
    await call("create_transaction", { wallet_id: wallet, direction: "expense", amount: "12.00", date: "2026-03-03", payee: "Film night" });
    const preview = await call("import_transactions", { wallet_id: wallet, statement: CSV, dry_run: true });
    expect(preview.counts).to.include({ possible_duplicate: 1, to_create: 2 });
    const done = await call("import_transactions", { wallet_id: wallet, statement: CSV, import_rows: [3], preview_id: preview.preview_id });
    expect(done.status).to.equal("committed");
    expect(done.counts).to.include({ created: 3 });
  });

  it("undo_change: dry run, then commit with its preview_id", async () => {
    const edit = await call("update_transactions", { filter: {}, payee: "Bean Bar", expected_count: 2, add_tags: ["beans"] });
    const preview = await call("undo_change", { audit_id: edit.audit_id, dry_run: true });
    const done = await call("undo_change", { audit_id: edit.audit_id, preview_id: preview.preview_id });
    expect(done.status).to.equal("committed");
  });

  it("a preview id commits once: after an undo restores its rows, it is stale_preview (used), not a second commit", async () => {
    const a = await spend("Tea House");
    const args = { filter: {}, payee: "Tea House", expected_count: 1, set_category: "Tea" };
    const preview = await call("update_transactions", { ...args, dry_run: true });
    const k = key();
    const done = await server.call("update_transactions", { ...args, preview_id: preview.preview_id, idempotency_key: k }, me.token);
    expect(done.status).to.equal("committed");
    // A retry of the same call (same key) still replays.
    const again = await server.call("update_transactions", { ...args, preview_id: preview.preview_id, idempotency_key: k }, me.token);
    expect(again).to.deep.include({ status: "replayed", audit_id: done.audit_id });
    const undo = await call("undo_change", { audit_id: done.audit_id });
    expect(undo.status).to.equal("committed");
    expect(await categoryOf(a.id)).to.equal(null);
    const reused = await refused("update_transactions", { ...args, preview_id: preview.preview_id });
    expect(reused.data).to.deep.include({ code: "stale_preview", field: "preview_id", reason: "used" });
    expect(reused.message).to.include("Preview again");
    expect(await categoryOf(a.id)).to.equal(null);
  });

  it(`a preview id older than ${PREVIEW_TTL_MS / 60_000} minutes is stale_preview (expired); a new dry run commits`, async () => {
    const a = await spend("Old Mill");
    const args = { filter: {}, payee: "Old Mill", expected_count: 1, set_category: "Bread" };
    const preview = await call("update_transactions", { ...args, dry_run: true });
    now += PREVIEW_TTL_MS + 1;
    const late = await refused("update_transactions", { ...args, preview_id: preview.preview_id });
    expect(late.data).to.deep.include({ code: "stale_preview", field: "preview_id", reason: "expired" });
    expect(late.message).to.include("Preview again");
    expect(await categoryOf(a.id)).to.equal(null);
    const fresh = await call("update_transactions", { ...args, dry_run: true });
    expect((await call("update_transactions", { ...args, preview_id: fresh.preview_id })).status).to.equal("committed");
  });

  it("used preview ids are kept only until they could no longer commit", async () => {
    const { purgeUsedPreviews } = await import("../../src/writes/preview.js");
    const held = await server.db("previews_used").where({ user_id: me.id }).count({ n: "*" }).first();
    expect(Number(held!.n)).to.be.greaterThan(0);
    await purgeUsedPreviews(server.db, new Date(now + PREVIEW_TTL_MS + 1));
    const left = await server.db("previews_used").where({ user_id: me.id }).count({ n: "*" }).first();
    expect(Number(left!.n)).to.equal(0);
  });
});
