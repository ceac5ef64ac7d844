/**
 * update_transactions, the bulk edit with a guard: it selects what list_transactions selects for the
 * same filters (another user's rows never), refuses any other count than expected_count with conflict
 * and the real count (writing nothing), previews with dry_run, sets the category, adds and removes
 * tags, sets or renames the payee and moves rows (transfer legs with their transfer) to a wallet of the
 * same currency; the commit is one audit entry naming every row, and undo_change reverses it exactly,
 * at the 5,000-row bound too. Also: undo of a real import_transactions, which forgets its import keys.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { girokontoCsv } from "../../scripts/bench/statement.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();

/** Every row of the user's data and the derived totals, to compare before and after exactly. */
async function snapshot(db: Knex, userId: string) {
  const out: Record<string, string[]> = {};
  for (const table of ["wallets", "transactions", "transaction_tags", "import_keys", "wallet_month_totals", "expense_day_totals"]) {
    const rows = await db(table).where({ user_id: userId });
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])))).sort();
  }
  return out;
}

describe(`update_transactions (${engine})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  before(async () => (server = await startTestServer({}, { now: () => new Date("2026-11-25T12:00:00Z") })));
  after(async () => server?.close());

  async function wallet(user: TestUser, name: string, currency = "EUR") {
    return (await server.call("create_wallet", { name, type: "checking", currency, opening_balance: "1000.00", idempotency_key: key() }, user.token)).wallet.id as string;
  }
  async function spend(user: TestUser, walletId: string, t: Record<string, unknown>) {
    return (await server.call("create_transaction", { wallet_id: walletId, direction: "expense", amount: "10.00", ...t, idempotency_key: key() }, user.token)).transaction;
  }
  const edit = (user: TestUser, args: Record<string, unknown>) => server.call("update_transactions", { idempotency_key: key(), ...args }, user.token);
  const editError = (user: TestUser, args: Record<string, unknown>) => server.callError("update_transactions", { idempotency_key: key(), ...args }, user.token);

  it("tags this year's work travel in one call: the count guards it, the dry run shows it, another user's rows never match", async () => {
    const me = await server.createUser();
    const other = await server.createUser();
    const giro = await wallet(me, "Giro");
    const train = await spend(me, giro, { date: "2026-06-03", payee: "Deutsche Bahn", category: "Travel", tags: ["work"], amount: "189.00" });
    const hotel = await spend(me, giro, { date: "2026-03-14", payee: "Hotel Adler", category: "travel", amount: "42.75" });
    await spend(me, giro, { date: "2025-12-30", payee: "Hotel Adler", category: "Travel" }); // last year
    await spend(me, giro, { date: "2026-05-01", payee: "REWE", category: "Groceries" });
    const theirs = await spend(other, await wallet(other, "Theirs"), { date: "2026-04-01", payee: "Hotel Adler", category: "Travel" });
    const filter = { category: "Travel", date_from: "2026-01-01", date_to: "2026-12-31" };
    expect((await server.call("list_transactions", filter, me.token)).total_count).to.equal(2);
    const before = await snapshot(server.db, me.id);

    // Another count: conflict with the real one, nothing written (a dry run answers the same).
    for (const dry_run of [true, false]) {
      const err = await editError(me, { filter, expected_count: 3, add_tags: ["tax-2026"], dry_run });
      expect(err.data).to.deep.include({ code: "conflict", field: "expected_count", transaction_count: 2 });
      expect(err.message).to.include("matches 2 transactions, not 3");
    }
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);

    const { preview_id, ...preview } = await edit(me, { filter, expected_count: 2, add_tags: ["Tax-2026"], dry_run: true });
    expect(preview_id).to.match(/^pv1\./);
    expect(preview).to.deep.equal({
      status: "dry_run",
      audit_id: null,
      matched: 2,
      changed: 2,
      transactions: [
        { id: train.id, date: "2026-06-03", amount: train.amount, payee: "Deutsche Bahn", changes: [{ field: "tags", before: ["work"], after: ["tax-2026", "work"] }] },
        { id: hotel.id, date: "2026-03-14", amount: hotel.amount, payee: "Hotel Adler", changes: [{ field: "tags", before: [], after: ["tax-2026"] }] },
      ],
      warnings: [],
    });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);

    const done = await edit(me, { filter, expected_count: 2, add_tags: ["Tax-2026"] });
    expect(done).to.deep.include({ status: "committed", matched: 2, changed: 2, transactions: preview.transactions });
    const tagged = await server.call("list_transactions", { tags_any: ["tax-2026"] }, me.token);
    expect(tagged.transactions.map((t: any) => t.id)).to.deep.equal([train.id, hotel.id]);
    expect((await server.call("list_transactions", {}, other.token)).transactions.map((t: any) => [t.id, t.tags])).to.deep.equal([[theirs.id, []]]);

    // Again: every row already has the tag; matched, nothing changed, and it says so.
    const again = await edit(me, { filter, expected_count: 2, add_tags: ["tax-2026"] });
    expect(again).to.deep.include({ matched: 2, changed: 0, transactions: [] });
    expect(again.warnings.map((w: any) => w.code)).to.deep.equal(["nothing_changed"]);

    // One audit entry, naming every row, in the person's words.
    const [entry] = (await server.call("list_changes", { audit_id: done.audit_id }, me.token)).changes;
    expect(entry).to.deep.include({ tool: "update_transactions", summary: "changed 2 transactions: tags +tax-2026" });
    expect(entry.ids).to.have.members([train.id, hotel.id]);
    const audit = await server.db("audit_log").where({ id: done.audit_id });
    expect(audit).to.have.length(1);
    expect(JSON.parse(audit[0].after_json).transaction_ids).to.deep.equal([train.id, hotel.id]);
  });

  it("selects by any of several payees, or by a list of ids, with the filter; the undo preview shows each row's fields before and after", async () => {
    const me = await server.createUser();
    const other = await server.createUser();
    const giro = await wallet(me, "Giro");
    const sb = await spend(me, giro, { payee: "Starbucks", category: "Coffee" });
    const cafe = await spend(me, giro, { payee: "Café Kranzler", category: "Treats" });
    const rewe = await spend(me, giro, { payee: "REWE", category: "Groceries" });
    const theirs = await spend(other, await wallet(other, "Theirs"), { payee: "Starbucks", category: "Coffee" });
    // "Move all my Starbucks and café visits into coffee": one call, any case.
    const wrong = await editError(me, { filter: {}, payee: ["starbucks", "CAFÉ KRANZLER"], expected_count: 3, set_category: "Dining" });
    expect(wrong.data).to.deep.include({ code: "conflict", transaction_count: 2 });
    const byPayee = await edit(me, { filter: {}, payee: ["starbucks", "CAFÉ KRANZLER"], expected_count: 2, set_category: "Dining" });
    expect(byPayee).to.deep.include({ matched: 2, changed: 1 + 1 });
    expect(byPayee.transactions.map((t: any) => t.id).sort()).to.deep.equal([sb.id, cafe.id].sort());
    // By ids: another user's id is not_found, named by its place in the list, as an id that never existed
    // would be (test/matrices/cross-user.test.ts), and nothing is written.
    expect((await editError(me, { filter: {}, transaction_ids: [rewe.id, theirs.id], expected_count: 2, add_tags: ["x"] })).data).to.deep.include({ code: "not_found", field: "transaction_ids.1" });
    const byIds = await edit(me, { filter: { wallet_id: giro }, transaction_ids: [rewe.id, sb.id], expected_count: 2, add_tags: ["checked"] });
    expect(byIds.transactions.map((t: any) => t.id).sort()).to.deep.equal([rewe.id, sb.id].sort());
    expect((await server.call("list_transactions", { query: "Starbucks" }, other.token)).transactions.map((t: any) => [t.id, t.tags])).to.deep.equal([[theirs.id, []]]);

    // The undo's preview: per reverted row, the fields that change, as they are now and once undone
    // (the later edit by ids first: it touched a row of the first).
    await server.call("undo_change", { audit_id: byIds.audit_id, idempotency_key: key() }, me.token);
    const preview = await server.call("undo_change", { audit_id: byPayee.audit_id, idempotency_key: key(), dry_run: true }, me.token);
    const reverted = preview.rows.filter((r: any) => r.table === "transactions");
    expect(reverted).to.deep.include.members([
      { id: sb.id, table: "transactions", action: "revert", changes: [{ field: "category", before: "Dining", after: "Coffee" }] },
      { id: cafe.id, table: "transactions", action: "revert", changes: [{ field: "category", before: "Dining", after: "Treats" }] },
    ]);
  });

  it("sets the category, renames a payee, removes tags; refuses bad arguments naming the field", async () => {
    const me = await server.createUser();
    const giro = await wallet(me, "Giro");
    const a = await spend(me, giro, { date: "2026-02-01", payee: "AMZN Mktp DE", tags: ["online", "x"] });
    const b = await spend(me, giro, { date: "2026-02-02", payee: "amzn mktp de", category: "Misc" });
    await spend(me, giro, { date: "2026-02-03", payee: "AMZN Mktp DE Prime" });
    const done = await edit(me, { filter: {}, payee: "Amzn Mktp De", expected_count: 2, set_payee: "Amazon", set_category: "Shopping", remove_tags: ["x"] });
    expect(done.changed).to.equal(2);
    const rows = await server.call("list_transactions", { query: "amazon" }, me.token);
    expect(rows.transactions.map((t: any) => [t.id, t.payee, t.category, t.tags])).to.deep.equal([
      [b.id, "Amazon", "Shopping", []],
      [a.id, "Amazon", "Shopping", ["online"]],
    ]);
    const [entry] = (await server.call("list_changes", { audit_id: done.audit_id }, me.token)).changes;
    expect(entry.summary).to.equal("changed 2 transactions: category → Shopping, tags −x, payee → Amazon");

    expect((await editError(me, { filter: {}, expected_count: 3 })).data).to.include({ code: "invalid_params", field: "(params)" });
    expect((await editError(me, { filter: {}, expected_count: 5001, set_category: "X" })).data).to.include({ code: "invalid_params", field: "expected_count" });
    expect((await editError(me, { filter: { date_from: "2026-03-01", date_to: "2026-02-01" }, expected_count: 1, set_category: "X" })).data).to.include({
      code: "invalid_params",
      field: "filter.date_to",
    });
    expect((await editError(me, { filter: { sort: "date_asc" }, expected_count: 1, set_category: "X" })).data).to.include({ code: "invalid_params" });
    expect((await editError(me, { filter: {}, expected_count: 3, add_tags: ["a"], remove_tags: ["A"] })).data).to.include({ code: "invalid_params", field: "remove_tags" });
    const stranger = await server.createUser();
    const theirWallet = await wallet(stranger, "Theirs");
    expect((await editError(me, { filter: { wallet_id: theirWallet }, expected_count: 1, set_category: "X" })).data).to.include({
      code: "not_found",
      field: "filter.wallet_id",
    });
    expect((await editError(me, { filter: {}, expected_count: 3, move_to_wallet_id: theirWallet })).data).to.include({ code: "not_found", field: "move_to_wallet_id" });
  });

  it("moves rows to a wallet of the same currency, transfer legs with their transfer; refuses another currency and a transfer onto itself", async () => {
    const me = await server.createUser();
    const oldCard = await wallet(me, "Old Visa");
    const newCard = await wallet(me, "New Visa");
    const giro = await wallet(me, "Giro");
    const dollars = await wallet(me, "Dollars", "USD");
    const coffee = await spend(me, oldCard, { date: "2026-10-01", payee: "Cafe" });
    const payoff = (await server.call("create_transaction", { wallet_id: giro, to_wallet_id: oldCard, direction: "transfer", amount: "50.00", date: "2026-10-05", idempotency_key: key() }, me.token))
      .counterpart;
    expect(payoff.wallet_id).to.equal(oldCard);

    expect((await editError(me, { filter: { wallet_id: oldCard }, expected_count: 2, move_to_wallet_id: dollars })).data).to.include({
      code: "invalid_params",
      field: "move_to_wallet_id",
    });
    const moved = await edit(me, { filter: { wallet_id: oldCard }, expected_count: 2, move_to_wallet_id: newCard });
    expect(moved.changed).to.equal(2);
    const legs = await server.call("list_transactions", { direction: "transfer" }, me.token);
    // Both sides sorted the same way: the ids are random, so their order is too.
    expect(legs.transactions.map((t: any) => [t.wallet_id, t.counterpart_wallet_id]).sort()).to.deep.equal(
      [
        [giro, newCard],
        [newCard, giro],
      ].sort(),
    );
    expect((await server.call("list_transactions", { wallet_id: newCard }, me.token)).transactions.map((t: any) => t.id)).to.have.members([coffee.id, payoff.id]);
    const balances = await server.call("list_wallets", {}, me.token);
    const balance = (id: string) => balances.wallets.find((w: any) => w.id === id).balance.value;
    expect([balance(oldCard), balance(newCard), balance(giro)]).to.deep.equal(["1000.00", "1040.00", "950.00"]);

    // Both legs into one wallet: refused, nothing written.
    const err = await editError(me, { filter: { direction: "transfer" }, expected_count: 2, move_to_wallet_id: giro });
    expect(err.data).to.include({ code: "invalid_params", field: "move_to_wallet_id" });
    expect(err.message).to.include("two different wallets");

    // Undo puts both back, the other leg's counterpart included.
    await server.call("undo_change", { audit_id: moved.audit_id, idempotency_key: key() }, me.token);
    expect((await server.call("list_transactions", { wallet_id: oldCard }, me.token)).total_count).to.equal(2);
    expect((await server.call("list_transactions", { wallet_id: giro }, me.token)).transactions[0].counterpart_wallet_id).to.equal(oldCard);
  });

  describe("split transactions", () => {
    async function splitRow(user: TestUser, walletId: string) {
      return spend(user, walletId, {
        date: "2026-11-10",
        payee: "REWE",
        amount: "64.80",
        parts: [
          { amount: "44.80", category: "Groceries" },
          { amount: "20.00", category: "Gifts", tags: ["present"] },
        ],
      });
    }
    const spendingBy = async (user: TestUser) => {
      const summary = await server.call("get_transaction_summary", { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" }, user.token);
      return Object.fromEntries((summary.groups as { key: string; expenses: { value: string } }[]).map((g) => [g.key, g.expenses.value]));
    };

    it("set_category re-categorises only the parts in the filtered category of a split row: summary, budgets and undo agree", async () => {
      const me = await server.createUser();
      const giro = await wallet(me, "Giro");
      const rewe = await splitRow(me, giro);
      await spend(me, giro, { date: "2026-11-12", payee: "Toy shop", category: "Gifts", amount: "15.00" });
      await server.call(
        "create_budget",
        { name: "Presents", amount: "100.00", currency: "EUR", period: "month", categories: ["Presents"], start_date: "2026-11-01", idempotency_key: key() },
        me.token,
      );
      const done = await edit(me, { filter: { category: "Gifts" }, expected_count: 2, set_category: "Presents" });
      expect(done.changed).to.equal(2);
      const shownSplit = done.transactions.find((t: { id: string }) => t.id === rewe.id);
      expect(shownSplit.changes).to.deep.equal([{ field: "parts[1].category", before: "Gifts", after: "Presents" }]);

      const listed = (await server.call("list_transactions", { wallet_id: giro }, me.token)).transactions.find((t: { id: string }) => t.id === rewe.id);
      expect(listed.category).to.equal(null);
      expect(listed.parts.map((part: { category: string }) => part.category)).to.deep.equal(["Groceries", "Presents"]);
      expect(await spendingBy(me)).to.deep.equal({ Groceries: "44.80", Presents: "35.00" });
      const status = await server.call("get_budget_status", { as_of: "2026-11-25" }, me.token);
      expect(status.budgets[0].spent.value).to.equal("35.00");

      await server.call("undo_change", { audit_id: done.audit_id, idempotency_key: key() }, me.token);
      expect(await spendingBy(me)).to.deep.equal({ Gifts: "35.00", Groceries: "44.80" });
    });

    it("set_category without a category filter keeps a split row's parts and warns split_rows_kept; tags reach every part", async () => {
      const me = await server.createUser();
      const giro = await wallet(me, "Giro");
      const rewe = await splitRow(me, giro);
      const bakery = await spend(me, giro, { date: "2026-11-11", payee: "Bakery", category: "Food", amount: "4.10" });
      const done = await edit(me, { filter: { wallet_id: giro }, expected_count: 2, set_category: "Shopping", add_tags: ["november"] });
      expect(done.warnings.map((w: { code: string }) => w.code)).to.include("split_rows_kept");
      const rows = (await server.call("list_transactions", { wallet_id: giro }, me.token)).transactions;
      const split = rows.find((t: { id: string }) => t.id === rewe.id);
      expect(split.category).to.equal(null);
      expect(split.parts.map((part: { category: string; tags: string[] }) => [part.category, part.tags])).to.deep.equal([
        ["Groceries", ["november"]],
        ["Gifts", ["november", "present"]],
      ]);
      expect(rows.find((t: { id: string }) => t.id === bakery.id).category).to.equal("Shopping");
      expect(await spendingBy(me)).to.deep.equal({ Gifts: "20.00", Groceries: "44.80", Shopping: "4.10" });
      const tagged = await server.call("get_transaction_summary", { date_from: "2026-11-01", date_to: "2026-11-30", tags_any: ["november"] }, me.token);
      expect(tagged.totals[0].expenses.value).to.equal("68.90");
    });
  });

  it("edits up to 5,000 rows in one change, refuses more with the real count, and undo_change reverses it exactly", async () => {
    const me = await server.createUser();
    const giro = await wallet(me, "Giro");
    const imported = await server.call("import_transactions", { wallet_id: giro, statement: girokontoCsv(5000), idempotency_key: key() }, me.token);
    expect(imported.counts.created).to.equal(5000);
    await spend(me, giro, { date: "2026-11-20", payee: "Kiosk" });
    const tooMany = await editError(me, { filter: { wallet_id: giro }, expected_count: 5000, add_tags: ["bulk"] });
    expect(tooMany.data).to.include({ code: "conflict", transaction_count: 5001 });
    expect(tooMany.message).to.include("at most 5000");

    const before = await snapshot(server.db, me.id);
    const filter = { wallet_id: giro, query: "sagt danke" };
    const done = await edit(me, { filter, expected_count: 5000, add_tags: ["bulk"], set_category: "Imported" });
    expect(done).to.deep.include({ matched: 5000, changed: 5000 });
    expect(done.transactions).to.have.length(20);
    expect((await server.call("list_transactions", { tags_all: ["bulk"], category: "imported" }, me.token)).total_count).to.equal(5000);
    expect(await server.db("audit_log").where({ user_id: me.id, tool: "update_transactions" })).to.have.length(1);

    // A row changed since: the undo is refused, naming that change; undone in order, all is as before.
    const row = (await server.call("list_transactions", { ...filter, limit: 1 }, me.token)).transactions[0];
    const later = await server.call("update_transaction", { transaction_id: row.id, notes: "checked", idempotency_key: key() }, me.token);
    const refused = await server.callError("undo_change", { audit_id: done.audit_id, idempotency_key: key() }, me.token);
    expect(refused.data).to.include({ code: "conflict", existing_id: later.audit_id });
    await server.call("undo_change", { audit_id: later.audit_id, idempotency_key: key() }, me.token);
    const undone = await server.call("undo_change", { audit_id: done.audit_id, idempotency_key: key() }, me.token);
    expect(undone.undone).to.deep.equal({ audit_id: done.audit_id, tool: "update_transactions" });
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
    // The undo of the undo makes the edit again.
    await server.call("undo_change", { audit_id: undone.audit_id, idempotency_key: key() }, me.token);
    expect((await server.call("list_transactions", { tags_all: ["bulk"] }, me.token)).total_count).to.equal(5000);
  });

  it("undoes a real import as one change, keys included, so the statement imports again; the undo can be undone", async () => {
    const me = await server.createUser();
    const giro = await wallet(me, "Giro");
    const statement = girokontoCsv(30);
    const before = await snapshot(server.db, me.id);
    const imported = await server.call("import_transactions", { wallet_id: giro, statement, idempotency_key: key() }, me.token);
    expect(imported.counts.created).to.equal(30);
    const afterImport = await snapshot(server.db, me.id);
    const preview = await server.call("undo_change", { audit_id: imported.audit_id, idempotency_key: key(), dry_run: true, rows_limit: 200 }, me.token);
    expect(preview.counts).to.deep.equal({ delete: preview.rows.length, restore: 0, revert: 0 });
    expect(preview.rows.filter((r: any) => r.table === "transactions" && r.action === "delete")).to.have.length(30);
    expect(preview.rows.filter((r: any) => r.table === "import_keys" && r.action === "delete").length).to.be.at.least(30);
    expect(await snapshot(server.db, me.id)).to.deep.equal(afterImport);
    const undone = await server.call("undo_change", { audit_id: imported.audit_id, idempotency_key: key() }, me.token);
    expect(await snapshot(server.db, me.id)).to.deep.equal(before);
    const again = await server.call("import_transactions", { wallet_id: giro, statement, idempotency_key: key(), dry_run: true }, me.token);
    expect(again.counts).to.include({ new: 30, duplicate: 0 });
    await server.call("undo_change", { audit_id: undone.audit_id, idempotency_key: key() }, me.token);
    expect(await snapshot(server.db, me.id)).to.deep.equal(afterImport);
  });
});
