/**
 * Split transactions and refunds (docs/ledger.md, "Split transactions" and "Refunds"), through the tools:
 * a split row is one row of its total in the wallet with its parts shown, found through a part's category
 * or tag, counted part by part in the summary, the category and tag lists and budgets; bad parts are each
 * refused by name with nothing written; an income in a spending category, or naming the expense it
 * refunds, is taken off spending (never making a budget "over") and shown apart. The write answers'
 * changes, the audit log, change events, undo, export/import and statement de-duplication carry both.
 * Another user's rows never show up. Runs on SQLite and Postgres (FINANCE_TEST_ENGINE).
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import type { AuditEntry } from "../../src/audit/log.js";
import { exportAccount } from "../../src/portability/export.js";
import { importAccount } from "../../src/portability/import.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const key = () => randomUUID();
const usd = (value: string) => ({ value, currency: "USD", minor: Math.round(Number(value) * 100) });

describe(`split transactions and refunds (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let me: TestUser;
  let stranger: TestUser;
  let visa: string;
  let savings: string;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-20T12:00:00Z") });
    me = await server.createUser({ timezone: "UTC" });
    stranger = await server.createUser({ timezone: "UTC" });
    const wallet = async (user: TestUser, name: string) =>
      (await server.call("create_wallet", { name, type: "credit_card", currency: "USD", idempotency_key: key() }, user.token)).wallet.id as string;
    visa = await wallet(me, "Visa");
    savings = await wallet(me, "Savings");
    // The stranger files the same categories and tags: none of it may reach my answers.
    const theirs = await wallet(stranger, "Theirs");
    await call(stranger, "create_transaction", {
      wallet_id: theirs,
      date: "2026-03-05",
      amount: "500.00",
      direction: "expense",
      parts: [
        { amount: "300.00", category: "Gifts", tags: ["present"] },
        { amount: "200.00", category: "Groceries" },
      ],
    });
    await call(stranger, "create_transaction", { wallet_id: theirs, date: "2026-03-06", amount: "7.00", direction: "income", category: "Shopping" });
  });
  after(async () => server?.close());

  function call(user: TestUser, tool: string, params: Record<string, unknown>) {
    return server.call(tool, { idempotency_key: key(), ...params }, user.token);
  }
  const mine = (tool: string, params: Record<string, unknown>) => call(me, tool, params);
  const read = (tool: string, params: Record<string, unknown> = {}) => server.call(tool, params, me.token);
  const rowCounts = async () => {
    const out: Record<string, number> = {};
    for (const t of ["transactions", "transaction_parts", "transaction_tags", "audit_log"]) {
      out[t] = Number(((await server.db(t).count({ n: "*" }).first()) as { n: unknown }).n);
    }
    return out;
  };
  const partsRows = async (id: string) =>
    (await server.db("transaction_parts").where({ transaction_id: id }).orderBy("position")).map((r: Record<string, unknown>) =>
      JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)]))),
    );

  const rewe = {
    date: "2026-03-10",
    amount: "64.80",
    direction: "expense",
    payee: "REWE",
    parts: [
      { amount: "44.80", category: "Groceries" },
      { amount: "20.00", category: "Gifts", tags: ["present"], notes: "for Anna" },
    ],
  };

  describe("a split purchase", () => {
    let split: any;
    before(async () => {
      split = (await mine("create_transaction", { wallet_id: visa, ...rewe })).transaction;
    });

    it("is one row of the total, with its parts, its own category null and its parts' tags", async () => {
      expect(split).to.deep.include({ amount: usd("-64.80"), category: null, tags: ["present"], payee: "REWE" });
      expect(split.parts).to.deep.equal([
        { amount: usd("-44.80"), category: "Groceries", tags: [], notes: null },
        { amount: usd("-20.00"), category: "Gifts", tags: ["present"], notes: "for Anna" },
      ]);
      const { transactions } = await read("list_transactions", { wallet_id: visa });
      expect(transactions).to.have.length(1);
      expect(transactions[0]).to.deep.equal(split);
      expect((await read("get_wallet_balance", { wallet_id: visa, as_of: "2026-03-20" })).wallets[0].balance.value).to.equal("-64.80");
    });

    it("is found through a part's category or tag, and only its own", async () => {
      for (const filter of [{ category: "gifts" }, { category: "GROCERIES" }, { tags_any: ["present"] }, { tags_all: ["present"] }]) {
        const { transactions } = await read("list_transactions", filter);
        expect(
          transactions.map((t: any) => t.id),
          JSON.stringify(filter),
        ).to.deep.equal([split.id]);
      }
      expect((await read("list_transactions", { category: "Rent" })).transactions).to.deep.equal([]);
    });

    it("counts each part in its own category and tag in the summary", async () => {
      const range = { date_from: "2026-03-01", date_to: "2026-03-10" };
      const byCategory = await read("get_transaction_summary", { ...range, group_by: "category" });
      expect(byCategory.groups.map((g: any) => [g.key, g.expenses.value, g.count])).to.deep.equal([
        ["Groceries", "44.80", 1],
        ["Gifts", "20.00", 1],
      ]);
      expect(byCategory.totals.map((t: any) => [t.expenses.value, t.income.value])).to.deep.equal([["64.80", "0.00"]]);
      const byTag = await read("get_transaction_summary", { ...range, group_by: "tag" });
      expect(byTag.groups.map((g: any) => [g.key, g.expenses.value])).to.deep.equal([
        [null, "44.80"],
        ["present", "20.00"],
      ]);
      const gifts = await read("get_transaction_summary", { ...range, category: "Gifts" });
      expect(gifts.totals.map((t: any) => t.expenses.value)).to.deep.equal(["20.00"]);
      const present = await read("get_transaction_summary", { ...range, tags_any: ["present"] });
      expect(present.totals.map((t: any) => t.expenses.value)).to.deep.equal(["20.00"]);
    });

    it("counts each part in list_categories and list_tags, the transaction once", async () => {
      const labels = (xs: any[]) => xs.map((l) => [l.name, l.transactions, l.spent.map((m: any) => m.value)]);
      expect(labels((await read("list_categories", { date_to: "2026-03-10" })).categories)).to.deep.equal([
        ["Gifts", 1, ["20.00"]],
        ["Groceries", 1, ["44.80"]],
      ]);
      expect(labels((await read("list_tags", { date_to: "2026-03-10" })).tags)).to.deep.equal([["present", 1, ["20.00"]]]);
    });
  });

  describe("bad parts, each refused by name, nothing written", () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["parts that do not sum", { parts: [{ amount: "44.80" }, { amount: "19.99" }] }, "parts"],
      ["a part of zero", { parts: [{ amount: "64.80" }, { amount: "0.00" }] }, "parts[1].amount"],
      ["a part of the other sign", { parts: [{ amount: "70.00" }, { amount: "-5.20" }] }, "parts[1].amount"],
      ["a single part", { parts: [{ amount: "64.80", category: "Groceries" }] }, "parts"],
      ["more than 50 parts", { amount: "0.51", parts: Array.from({ length: 51 }, () => ({ amount: "0.01" })) }, "parts"],
      ["a part with too many decimals", { parts: [{ amount: "44.801" }, { amount: "19.999" }] }, "parts[0].amount"],
    ];
    for (const [what, change, field] of cases) {
      it(`refuses ${what}`, async () => {
        const before = await rowCounts();
        const ok = { wallet_id: visa, ...rewe, date: "2026-03-11" };
        const err = await server.callError("create_transaction", { ...ok, ...change, idempotency_key: key() }, me.token);
        expect(err.data).to.include({ code: "invalid_params", field });
        expect(await rowCounts()).to.deep.equal(before);
      });
    }

    it("refuses a part on a transfer", async () => {
      const before = await rowCounts();
      const err = await server.callError(
        "create_transaction",
        {
          wallet_id: visa,
          to_wallet_id: savings,
          amount: "10.00",
          direction: "transfer",
          parts: [{ amount: "5.00" }, { amount: "5.00" }],
          idempotency_key: key(),
        },
        me.token,
      );
      expect(err.data).to.include({ code: "invalid_params", field: "parts" });
      expect(await rowCounts()).to.deep.equal(before);
    });

    it("refuses changing a split row's amount, category or tags without parts", async () => {
      const t = (await mine("create_transaction", { wallet_id: visa, ...rewe, date: "2026-03-12" })).transaction;
      for (const [field, value] of [
        ["amount", "70.00"],
        ["category", "Food"],
        ["tags", ["x"]],
      ] as const) {
        const err = await server.callError("update_transaction", { transaction_id: t.id, [field]: value, idempotency_key: key() }, me.token);
        expect(err.data).to.include({ code: "invalid_params", field });
      }
      const err = await server.callError(
        "update_transaction",
        { transaction_id: t.id, amount: "70.00", parts: [{ amount: "60.00" }, { amount: "5.00" }], idempotency_key: key() },
        me.token,
      );
      expect(err.data).to.include({ code: "invalid_params", field: "parts" });
      await mine("delete_transaction", { transaction_id: t.id });
    });
  });

  describe("update, un-split, and the change log", () => {
    it("re-splits and un-splits through update_transaction; changes, the audit row and the event carry the parts; undo restores them", async () => {
      const events: AuditEntry[] = [];
      const unsubscribe = server.services.bus.subscribe(me.id, (e) => events.push(e));
      try {
        const t = (await mine("create_transaction", { wallet_id: savings, date: "2026-03-15", amount: "30.00", direction: "expense", category: "Household" }))
          .transaction;
        const partsBefore = await partsRows(t.id);
        expect(partsBefore).to.deep.equal([]);
        // Split it, with a new amount.
        const res = await mine("update_transaction", {
          transaction_id: t.id,
          amount: "35.00",
          parts: [
            { amount: "25.00", category: "Household", tags: ["home"] },
            { amount: "10.00", category: "Garden", notes: "seeds" },
          ],
        });
        expect(res.transaction.amount).to.deep.equal(usd("-35.00"));
        expect(res.transaction.category).to.equal(null);
        const changed = Object.fromEntries(res.changes.map((c: any) => [c.field, c]));
        expect(changed.parts.before).to.equal(null);
        expect(changed.parts.after).to.deep.equal(res.transaction.parts);
        expect(changed.category).to.deep.include({ before: "Household", after: null });
        const audit = await server.db("audit_log").where({ id: res.audit_id }).first();
        expect(JSON.parse(audit.after_json).transaction.parts).to.deep.equal(res.transaction.parts);
        const deadline = Date.now() + 5000;
        while (!events.some((e) => e.id === res.audit_id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        expect((events.find((e) => e.id === res.audit_id)!.after as any).transaction.parts).to.deep.equal(res.transaction.parts);
        const { changes } = await read("list_changes", { limit: 1 });
        expect(changes[0].audit_id).to.equal(res.audit_id);
        expect(changes[0].summary).to.include("parts");
        const partsSplit = await partsRows(t.id);

        // Switching the direction flips every part's sign.
        const income = await mine("update_transaction", { transaction_id: t.id, direction: "income" });
        expect(income.transaction.parts.map((p: any) => p.amount.value)).to.deep.equal(["25.00", "10.00"]);
        await mine("update_transaction", { transaction_id: t.id, direction: "expense" });

        // Un-split: the row keeps its largest part's category and its tags.
        const plain = await mine("update_transaction", { transaction_id: t.id, parts: [] });
        expect(plain.transaction).to.deep.include({ category: "Household", tags: ["home"] });
        expect(plain.transaction).to.not.have.property("parts");
        expect(await partsRows(t.id)).to.deep.equal([]);

        // Undo of the un-split puts the parts back exactly.
        await mine("undo_change", { audit_id: plain.audit_id });
        expect(await partsRows(t.id)).to.deep.equal(partsSplit);
        // Undo of a split: no parts, the amount and category as before.
        const other = (
          await mine("create_transaction", { wallet_id: savings, date: "2026-03-17", amount: "30.00", direction: "expense", category: "Household" })
        ).transaction;
        const splitting = await mine("update_transaction", {
          transaction_id: other.id,
          amount: "35.00",
          parts: [{ amount: "25.00" }, { amount: "10.00", category: "Garden" }],
        });
        expect(await partsRows(other.id)).to.have.length(2);
        await mine("undo_change", { audit_id: splitting.audit_id });
        expect(await partsRows(other.id)).to.deep.equal([]);
        const back = (await read("list_transactions", { wallet_id: savings, date_from: "2026-03-17", date_to: "2026-03-17" })).transactions[0];
        expect(back).to.deep.equal(other);
        await mine("delete_transaction", { transaction_id: other.id });
        await mine("delete_transaction", { transaction_id: t.id });
      } finally {
        unsubscribe();
      }
    });

    it("undoes the creation of a split row and the deletion of one exactly", async () => {
      const made = await mine("create_transaction", { wallet_id: savings, ...rewe, date: "2026-03-16" });
      const id = made.transaction.id;
      expect((await read("list_changes", { limit: 1 })).changes[0].summary).to.include("split Groceries -44.80 USD + Gifts -20.00 USD");
      const parts = await partsRows(id);
      expect(parts).to.have.length(2);
      const gone = await mine("delete_transaction", { transaction_id: id });
      expect(await partsRows(id)).to.deep.equal([]);
      await mine("undo_change", { audit_id: gone.audit_id });
      expect(await partsRows(id)).to.deep.equal(parts);
      await mine("undo_change", { audit_id: made.audit_id });
      expect(await server.db("transactions").where({ id }).first()).to.equal(undefined);
      expect(await partsRows(id)).to.deep.equal([]);
    });
  });

  describe("refunds", () => {
    let shoe: any;
    before(async () => {
      shoe = (
        await mine("create_transaction", { wallet_id: visa, date: "2026-03-03", amount: "40.00", direction: "expense", payee: "Zalando", category: "Shopping" })
      ).transaction;
    });

    it("takes an income in a spending category off spending, shown apart, in the summary and the category list", async () => {
      const refund = (
        await mine("create_transaction", { wallet_id: visa, date: "2026-03-08", amount: "19.99", direction: "income", payee: "Amazon", category: "shopping" })
      ).transaction;
      expect(refund).to.deep.include({ refund: true, category: "shopping" });
      const salary = (await mine("create_transaction", { wallet_id: savings, date: "2026-03-01", amount: "1000.00", direction: "income", category: "Salary" }))
        .transaction;
      expect(salary).to.not.have.property("refund");
      const summary = await read("get_transaction_summary", { date_from: "2026-03-01", date_to: "2026-03-09", group_by: "category" });
      const shopping = summary.groups.find((g: any) => g.key?.toLowerCase() === "shopping");
      expect(shopping).to.deep.include({ expenses: usd("20.01"), income: usd("0.00"), refunds: usd("19.99"), count: 2 });
      expect(summary.totals[0]).to.deep.include({ income: usd("1000.00"), refunds: usd("19.99"), expenses: usd("20.01") });
      const categories = (await read("list_categories", { date_from: "2026-03-01", date_to: "2026-03-09" })).categories;
      expect(categories.find((c: any) => c.name.toLowerCase() === "shopping")).to.deep.include({ spent: [usd("20.01")], refunds: [usd("19.99")] });
      expect(categories.find((c: any) => c.name === "Salary")).to.not.have.property("refunds");
    });

    it("means one thing by spending whatever the direction filter: expense nets the refunds, income leaves them out", async () => {
      const range = { date_from: "2026-03-01", date_to: "2026-03-09" };
      const all = await read("get_transaction_summary", { ...range, group_by: "category" });
      const spending = await read("get_transaction_summary", { ...range, group_by: "category", direction: "expense" });
      const income = await read("get_transaction_summary", { ...range, group_by: "category", direction: "income" });
      const shopping = (s: any) => s.groups.find((g: any) => g.key?.toLowerCase() === "shopping");
      // The case: "what did I really spend on shopping?" is 20.01 with or without the filter.
      expect(shopping(spending)).to.deep.include({ expenses: usd("20.01"), refunds: usd("19.99"), income: usd("0.00") });
      expect(shopping(spending).expenses).to.deep.equal(shopping(all).expenses);
      expect(spending.totals[0]).to.deep.include({ expenses: all.totals[0].expenses, refunds: usd("19.99"), income: usd("0.00") });
      // Income means money earned: the refund is not in it, and Shopping has none.
      expect(shopping(income)).to.equal(undefined);
      expect(income.totals[0]).to.deep.include({ income: usd("1000.00"), expenses: usd("0.00") });
      expect(income.totals[0]).to.not.have.property("refunds");
      const categories = (await read("list_categories", range)).categories;
      expect(categories.find((c: any) => c.name.toLowerCase() === "shopping").spent).to.deep.equal([shopping(spending).expenses]);
    });

    it("marks an income as the refund of a given expense (its category by default), one call", async () => {
      const back = (
        await mine("create_transaction", { wallet_id: visa, date: "2026-03-09", amount: "5.00", direction: "income", payee: "Zalando", refund_of: shoe.id })
      ).transaction;
      expect(back).to.deep.include({ refund: true, refund_of: shoe.id, category: "Shopping" });
      for (const [params, field, code] of [
        [{ direction: "expense", refund_of: shoe.id }, "refund_of", "invalid_params"],
        [{ direction: "income", refund_of: back.id }, "refund_of", "invalid_params"],
        [{ direction: "income", refund_of: "txn_AAAAAAAAAAAAAAAAAAAAAA" }, "refund_of", "not_found"],
      ] as const) {
        const err = await server.callError("create_transaction", { wallet_id: visa, amount: "1.00", ...params, idempotency_key: key() }, me.token);
        expect(err.data).to.include({ code, field });
      }
      // Another user's expense is not found, like a missing one.
      const theirs = await server.db("transactions").where({ user_id: stranger.id, direction: "expense" }).first("id");
      const err = await server.callError(
        "create_transaction",
        { wallet_id: visa, amount: "1.00", direction: "income", refund_of: theirs.id, idempotency_key: key() },
        me.token,
      );
      expect(err.data).to.include({ code: "not_found", field: "refund_of" });
    });

    it("makes a statement's credit a refund when a rule files it in a spending category", async () => {
      // Another person of this server (rules and imports are history this account's export test keeps out).
      const pat = await server.createUser({ timezone: "UTC" });
      const w = (await call(pat, "create_wallet", { name: "Card", type: "credit_card", currency: "USD" })).wallet.id;
      await call(pat, "create_transaction", { wallet_id: w, date: "2026-03-02", amount: "30.00", direction: "expense", category: "Shopping" });
      await call(pat, "save_rule", { operator: "contains", value: "amazon", direction: "income", set_category: "Shopping" });
      const statement = [
        "Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #",
        'CREDIT,03/07/2026,AMAZON MARKETPLACE,3.50,ACH_CREDIT,"3.50",,',
      ].join("\n");
      const res = await call(pat, "import_transactions", { wallet_id: w, statement, rows_limit: 10 });
      expect(res.counts.created).to.equal(1);
      const { transactions } = await server.call("list_transactions", { wallet_id: w, direction: "income" }, pat.token);
      expect(transactions[0]).to.deep.include({ category: "Shopping", refund: true });
      const { totals } = await server.call("get_transaction_summary", { date_from: "2026-03-01", date_to: "2026-03-31" }, pat.token);
      expect(totals[0]).to.deep.include({ expenses: usd("26.50"), refunds: usd("3.50"), income: usd("0.00") });
    });

    it("never makes a budget over because of a purchase that came back; a split counts its parts in scope", async () => {
      const budget = async (name: string, amount: string, categories: string[]) =>
        (await mine("create_budget", { name, amount, period: "month", categories, start_date: "2026-03-01" })).budget.id as string;
      const shopping = await budget("Shopping", "30.00", ["Shopping"]);
      const gifts = await budget("Gifts", "15.00", ["Gifts"]);
      const groceries = await budget("Groceries", "100.00", ["Groceries"]);
      const status = async (id: string) => (await read("get_budget_status", { budget_id: id, as_of: "2026-03-20" })).budgets[0];
      // Shopping: 40.00 spent, 19.99 and 5.00 came back.
      expect(await status(shopping)).to.deep.include({ spent: usd("15.01"), refunds: usd("24.99"), over_budget: false, transaction_count: 1 });
      // Gifts holds the REWE present (20.00 of 64.80), over its 15.00; Groceries only its 44.80.
      expect(await status(gifts)).to.deep.include({ spent: usd("20.00"), over_budget: true, transaction_count: 1 });
      expect(await status(groceries)).to.deep.include({ spent: usd("44.80"), over_budget: false });
      expect(await status(groceries)).to.not.have.property("refunds");
      // A new split expense warns once for the budget its part pushed over.
      const res = await mine("create_transaction", {
        wallet_id: visa,
        date: "2026-03-18",
        amount: "90.00",
        direction: "expense",
        parts: [
          { amount: "60.00", category: "Groceries" },
          { amount: "30.00", category: "Groceries", tags: ["party"] },
        ],
      });
      expect(res.warnings.filter((w: any) => w.code === "budget_over_limit")).to.have.length(1);
      expect(await status(groceries)).to.deep.include({ spent: usd("134.80"), over_budget: true, transaction_count: 3 });
    });
  });

  describe("leaving and coming back", () => {
    it("export and import round-trip the parts and the refunds", async () => {
      const data = await exportAccount(server.db, me.id);
      const rows = data.transactions as Record<string, any>[];
      const split = rows.find((r) => r.payee === "REWE" && r.date === "2026-03-10")!;
      expect(split.parts.map((p: any) => [String(p.amount_minor), p.category, p.tags, p.notes])).to.deep.equal([
        ["-4480", "Groceries", [], null],
        ["-2000", "Gifts", ["present"], "for Anna"],
      ]);
      const copy = await server.createUser({ timezone: "UTC" });
      const { ids } = await importAccount(server.db, copy.id, JSON.parse(JSON.stringify(data)));
      const strip = (t: any) => {
        const { id: _id, wallet_id: _w, refund_of, created_at: _c, updated_at: _u, ...rest } = t;
        return { ...rest, refund_of: refund_of === undefined ? undefined : "set" };
      };
      const mineNow = (await read("list_transactions", { limit: 200 })).transactions.map(strip);
      const theirs = (await server.call("list_transactions", { limit: 200 }, copy.token)).transactions.map(strip);
      expect(theirs).to.deep.equal(mineNow);
      expect(theirs.some((t: any) => t.parts?.length === 2)).to.equal(true);
      expect(theirs.filter((t: any) => t.refund).length).to.be.greaterThan(1);
      const refundOf = rows.find((r) => r.refund_of)!;
      const imported = await server
        .db("transactions")
        .where({ id: ids.get(refundOf.id) })
        .first();
      expect(imported.refund_of).to.equal(ids.get(refundOf.refund_of));
      const summary = (user: TestUser) =>
        server.call("get_transaction_summary", { date_from: "2026-03-01", date_to: "2026-03-31", group_by: "category" }, user.token);
      expect((await summary(copy)).groups).to.deep.equal((await summary(me)).groups);
    });

    it("de-duplicates a statement line against a split row's whole", async () => {
      const w = (await mine("create_wallet", { name: "Checking", type: "checking", currency: "USD" })).wallet.id;
      await mine("create_transaction", {
        wallet_id: w,
        date: "2026-11-23",
        amount: "42.75",
        direction: "expense",
        payee: "TRADER JOE'S #552, PORTLAND OR",
        parts: [
          { amount: "40.00", category: "Groceries" },
          { amount: "2.75", category: "Flowers" },
        ],
      });
      const statement = [
        "Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #",
        'DEBIT,11/23/2026,"TRADER JOE\'S #552, PORTLAND OR",-42.75,DEBIT_CARD,"1,957.25",,',
        'DEBIT,11/20/2026,SHELL OIL 57442,-38.10,DEBIT_CARD,"2,000.00",,',
      ].join("\n");
      const preview = await mine("import_transactions", { wallet_id: w, statement, dry_run: true, rows_limit: 10 });
      expect(preview.counts.new).to.equal(1);
      expect(preview.counts.rows).to.equal(2);
    });
  });
});
