/**
 * One cap on the rows of a bulk write (issue 41; openrpc.json info.x-limits.bulk_write_rows): an import,
 * a rule applied to the past and an undo stop at it, as update_transactions does (test/tools/bulk-edit.test.ts),
 * dry run or not, and nothing is written. The largest allowed change is undone whole. Confirmation above
 * the shared threshold: test/protocol/elicitation.test.ts.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { limits } from "../../generated/limits.js";
import { girokontoCsv } from "../../scripts/bench/statement.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();
const CAP = limits.bulkWriteRows;

describe(`one cap on every bulk write (${engine})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  let me: TestUser;
  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-11-25T12:00:00Z") });
    me = await server.createUser();
  });
  after(async () => server?.close());

  const wallet = async () => (await server.call("create_wallet", { name: `Giro ${key().slice(0, 6)}`, type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id as string;
  const count = async (walletId: string) => (await server.call("list_transactions", { wallet_id: walletId, limit: 1 }, me.token)).total_count as number;

  it(`an import creates at most ${CAP} transactions: a larger statement is refused, preview and commit, naming the statement`, async () => {
    const w = await wallet();
    for (const dry_run of [true, false]) {
      const err = await server.callError("import_transactions", { wallet_id: w, statement: girokontoCsv(CAP + 1), idempotency_key: key(), dry_run }, me.token);
      expect(err.data).to.include({ code: "invalid_params", field: "statement" });
      expect(err.message).to.include(`holds ${CAP + 1} rows to book; one import reads at most ${CAP}`);
    }
    expect(await count(w)).to.equal(0);
  });

  it(`a rule applied to the past changes at most ${CAP} rows; the largest allowed change is undone whole; a larger undo is refused`, async () => {
    const w = await wallet();
    const imported = await server.call("import_transactions", { wallet_id: w, statement: girokontoCsv(CAP), idempotency_key: key() }, me.token);
    expect(imported.counts).to.include({ created: CAP, to_create: CAP });
    const extra = await server.call(
      "create_transaction",
      { wallet_id: w, amount: "1.00", direction: "expense", payee: "Kiosk", description: "KIOSK SAGT DANKE 1", idempotency_key: key() },
      me.token,
    );
    // Every imported row's reference says "SAGT DANKE": with the extra row, one more than the cap.
    const rule = { field: "description", value: "sagt danke", set_category: "Filed", apply_to_existing: true };
    const over = await server.callError("save_rule", { ...rule, idempotency_key: key(), dry_run: true }, me.token);
    expect(over.data).to.include({ code: "invalid_params", field: "apply_to_existing" });
    expect(over.message).to.include(`would change ${CAP + 1} past transactions`);
    const tooMany = await server.callError("save_rule", { ...rule, expected_count: CAP + 1, idempotency_key: key() }, me.token);
    expect(tooMany.data).to.include({ code: "invalid_params" });
    expect((await server.call("list_rules", {}, me.token)).rules).to.deep.equal([]);

    await server.call("delete_transaction", { transaction_id: extra.transaction.id, idempotency_key: key() }, me.token);
    const preview = await server.call("save_rule", { ...rule, idempotency_key: key(), dry_run: true }, me.token);
    expect(preview.applied.count).to.equal(CAP);
    const applied = await server.call("save_rule", { ...rule, expected_count: CAP, idempotency_key: key() }, me.token);
    expect(applied.applied.count).to.equal(CAP);
    expect((await server.call("list_transactions", { wallet_id: w, category: "Filed", limit: 1 }, me.token)).total_count).to.equal(CAP);

    // The largest allowed change (the rule over 5,000 rows) is undone whole, then the import under it.
    await server.call("undo_change", { audit_id: applied.audit_id, idempotency_key: key() }, me.token);
    expect((await server.call("list_transactions", { wallet_id: w, category: "Filed", limit: 1 }, me.token)).total_count).to.equal(0);

    // A change larger than the cap (only history from before the cap can be): one more captured
    // transaction row under the import's audit entry makes it CAP + 1 records, refused before any work.
    const ghost = `txn_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
    await server.db("audit_rows").insert({
      user_id: me.id,
      audit_id: imported.audit_id,
      table_name: "transactions",
      row_key: JSON.stringify({ id: ghost }),
      before_json: null,
      after_json: JSON.stringify({ id: ghost, user_id: me.id }),
    });
    const big = await server.callError("undo_change", { audit_id: imported.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    expect(big.data).to.include({ code: "invalid_params", field: "audit_id" });
    expect(big.message).to.include(`changed ${CAP + 1} records`);
    expect(await count(w)).to.equal(CAP);
  });
});
