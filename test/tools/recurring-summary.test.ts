/**
 * recurring_payees (migration 20261125170000, docs/decisions.md#recurring-summary): each payee's newest
 * rows, kept by triggers, that list_recurring reads. After every kind of write that touches transactions
 * — a seeded random sequence through the tools (creates with payee spellings, transfers, updates of
 * payee, date, amount, wallet and direction, deletes, goal funding), a bulk edit renaming a payee and its
 * undo, a statement import and its undo, a split transaction, multi-row SQL, a failed write, an account
 * export imported into another person, an account deletion — the table must equal a from-scratch
 * reading of the transactions (each payee's newest rows by date, then id), and list_recurring must answer
 * what detection over that from-scratch reading answers. The expectations never read the table they check.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { deleteAccount } from "../../src/account/delete.js";
import { detectRecurring } from "../../src/domain/recurring/detect.js";
import { LATEST_PER_PAYEE, type Charge } from "../../src/domain/recurring/store.js";
import { exportAccount } from "../../src/portability/export.js";
import { importAccount } from "../../src/portability/import.js";
import { engine } from "../helpers/database.js";
import { withFailingInsert } from "../helpers/forced-failure.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { dateBetween, key, randomLedgerWrites, seeded } from "../writes/ledger-fixture.js";

const NOW = new Date("2026-03-15T12:00:00Z");
const TODAY = "2026-03-15";

type Kept = [payee: string, date: string, amount: string, currency: string, direction: string, wallet: string];

describe(`recurring payee summary (${engine})`, function () {
  this.timeout(240_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
  });
  after(async () => server?.close());

  /** Every user's payees from the transactions themselves: user → payee key → newest rows (and the floor). */
  async function fromScratch(): Promise<Record<string, { latest: Kept[]; floor: string | null }>> {
    const rows = await server.db
      .select("user_id", server.db.raw("lower(payee) AS k"), "id", "payee", "date", "amount_minor", "currency", "direction", "wallet_id")
      .from("transactions")
      .whereNotNull("payee")
      .orderBy([{ column: "user_id" }, { column: "k" }, { column: "date", order: "desc" }, { column: "id", order: "desc" }]);
    const out: Record<string, { latest: Kept[]; floor: string | null }> = {};
    for (const r of rows) {
      const k = `${r.user_id}|${r.k}`;
      const entry = (out[k] ??= { latest: [], floor: null });
      if (entry.latest.length < LATEST_PER_PAYEE) entry.latest.push([r.payee, r.date, String(BigInt(r.amount_minor)), r.currency, r.direction, r.wallet_id]);
    }
    for (const entry of Object.values(out)) entry.floor = entry.latest.length === LATEST_PER_PAYEE ? entry.latest[LATEST_PER_PAYEE - 1]![1] : null;
    return out;
  }

  async function stored(): Promise<Record<string, { latest: Kept[]; floor: string | null }>> {
    const out: Record<string, { latest: Kept[]; floor: string | null }> = {};
    for (const r of await server.db("recurring_payees")) out[`${r.user_id}|${r.payee_key}`] = { latest: JSON.parse(r.latest) as Kept[], floor: r.floor_date ?? null };
    return out;
  }

  /** list_recurring's answer, and detection over the from-scratch rows, as comparable lines. */
  async function answers(user: TestUser): Promise<{ listed: string[]; detected: string[] }> {
    const scratch = await fromScratch();
    const charges: Charge[] = [];
    for (const k of Object.keys(scratch).sort()) {
      if (!k.startsWith(`${user.id}|`)) continue;
      for (const [payee, date, amount, currency, direction, walletId] of scratch[k]!.latest) {
        if (direction === "expense" || direction === "income") charges.push({ payee, date, amountMinor: BigInt(amount), currency, direction, walletId });
      }
    }
    const detected = detectRecurring(charges, TODAY).map(
      (r) => `${r.payee} ${r.direction} ${r.currency} ${r.interval} ${r.status} ${r.occurrences} ${r.lastDate} ${r.nextDate} ${r.typicalMinor} ${r.walletId}`,
    );
    const answer = await server.call("list_recurring", { include_ended: true }, user.token);
    const listed = answer.recurring.map(
      (r: any) =>
        `${r.payee} ${r.direction} ${r.typical_amount.currency} ${r.interval} ${r.status} ${r.occurrences} ${r.last_date} ${r.next_date} ${r.typical_amount.minor} ${r.wallet_id}`,
    );
    return { listed, detected };
  }

  async function expectRight(context: string, users: TestUser[]): Promise<void> {
    expect(await stored(), context).to.deep.equal(await fromScratch());
    for (const u of users) {
      const { listed, detected } = await answers(u);
      expect(listed, `${context}: list_recurring of ${u.id}`).to.deep.equal(detected);
    }
  }

  const PAYEES = ["Streamly", "STREAMLY", "Streamly #4411", "Gym", "gym ", "Bakery", "Ölwerk", "Rent"];

  it("follows every write through the tools, a bulk edit, an import, their undo, splits, SQL and failed writes", async () => {
    const u = await server.createUser();
    const other = await server.createUser();
    const wallet = async (who: TestUser, name: string, currency: string) =>
      (await server.call("create_wallet", { name, type: "checking", currency, idempotency_key: key() }, who.token)).wallet.id as string;
    const usd = [await wallet(u, "Checking", "USD"), await wallet(u, "Card", "USD")];
    const yen = await wallet(u, "Yen", "JPY");
    const theirs = await wallet(other, "Theirs", "USD");
    const pay = (who: TestUser, walletId: string, date: string, amount: string, payee: string, direction = "expense") =>
      server.call("create_transaction", { wallet_id: walletId, date, amount, direction, payee, idempotency_key: key() }, who.token);
    // Regular ones, so that detection has something to find (and the random writes something to break).
    for (const m of ["2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03"]) {
      await pay(u, usd[0]!, `${m}-03`, "14.99", "Streamly");
      await pay(u, usd[1]!, `${m}-01`, "1200.00", "Rent");
      await pay(other, theirs, `${m}-05`, "30.00", "Streamly");
    }
    for (const d of ["2026-02-13", "2026-02-20", "2026-02-27", "2026-03-06", "2026-03-13"]) await pay(u, usd[0]!, d, "9.50", "Bakery");
    await expectRight("after the regular ones", [u, other]);
    expect((await answers(u)).listed.length, "detection finds the regular ones").to.be.greaterThan(1);

    const r = seeded(20261125);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const goal = (await server.call("create_goal", { name: "Trip", currency: "USD", target_amount: "100000.00", idempotency_key: key() }, u.token)).goal.id;
    const { committed } = await randomLedgerWrites(server, u, {
      usd,
      yen,
      goal,
      r,
      steps: 140,
      date: () => dateBetween(r, "2025-12-01", 100),
      createExtras: () => (r() < 0.85 ? { payee: pick(PAYEES) } : {}),
      updateExtras: () => ({ payee: pick(PAYEES) }),
      every: 20,
      checkpoint: (i) => expectRight(`after random step ${i}`, [u, other]),
    });
    expect(committed, "most random writes commit").to.be.greaterThan(90);
    const summary = await stored();
    expect(
      Object.values(summary).some((s) => s.floor !== null),
      "some payee has more rows than are kept",
    ).to.equal(true);

    // A bulk edit renaming a payee (many rows in one statement), and its undo.
    const count = (await server.db("transactions").where({ user_id: u.id }).andWhereRaw("lower(payee) = ?", ["gym"])).length;
    expect(count).to.be.greaterThan(0);
    const edited = await server.call("update_transactions", { filter: {}, payee: "gym", expected_count: count, set_payee: "Streamly", idempotency_key: key() }, u.token);
    await expectRight("after a bulk edit of the payee", [u]);
    await server.call("undo_change", { audit_id: edited.audit_id, idempotency_key: key() }, u.token);
    await expectRight("after undoing the bulk edit", [u]);

    // A statement import, and its undo.
    const eur = await wallet(u, "Giro", "EUR");
    const statement = readFileSync(new URL("../fixtures/statements/girokonto.csv", import.meta.url), "utf8");
    const imported = await server.call("import_transactions", { wallet_id: eur, statement, idempotency_key: key(), rows_limit: 200 }, u.token);
    await expectRight("after an import", [u]);
    await server.call("undo_change", { audit_id: imported.audit_id, idempotency_key: key() }, u.token);
    await expectRight("after undoing the import", [u]);

    // A split transaction of a kept payee, updated and deleted.
    const split = await server.call(
      "create_transaction",
      {
        wallet_id: usd[0],
        date: "2026-03-14",
        amount: "50.00",
        direction: "expense",
        payee: "Bakery",
        parts: [
          { amount: "30.00", category: "Food" },
          { amount: "20.00", category: "Gifts" },
        ],
        idempotency_key: key(),
      },
      u.token,
    );
    await expectRight("after a split", [u]);
    await server.call("update_transaction", { transaction_id: split.transaction.id, date: "2026-03-10", idempotency_key: key() }, u.token);
    await expectRight("after a split moved", [u]);
    await server.call("delete_transaction", { transaction_id: split.transaction.id, idempotency_key: key() }, u.token);
    await expectRight("after a split deleted", [u]);

    // Several rows in one SQL statement (Postgres fires row triggers at the statement's end).
    await server.db("transactions").where({ user_id: u.id }).andWhereRaw("lower(payee) = ?", ["streamly"]).update({ payee: "Bakery" });
    await expectRight("after a multi-row update in SQL", [u]);
    await server.db("transactions").where({ user_id: u.id }).andWhereRaw("lower(payee) = ?", ["bakery"]).andWhere("date", "<", "2026-02-01").delete();
    await expectRight("after a multi-row delete in SQL", [u]);
    // A multi-row insert of several payees, one row newer than its payee's kept ones, one far older.
    const model = await server.db("transactions").where({ user_id: u.id, direction: "expense" }).first();
    const copies = [
      { payee: "Rent", date: "2026-03-15" },
      { payee: "RENT", date: "2020-01-01" },
      { payee: "Bakery", date: "2026-03-14" },
      { payee: "New Payee", date: "2026-03-01" },
    ].map((c, i) => ({ ...model, ...c, id: `txn_recurringsummarycopy${i}`, external_id: null }));
    await server.db("transactions").insert(copies);
    await expectRight("after a multi-row insert in SQL", [u]);

    // A write that fails after its rows were written leaves the summary as it was.
    const before = await stored();
    await withFailingInsert(server.db, "audit_log", async () => {
      const err = await server.callError("create_transaction", { wallet_id: usd[0], date: "2026-03-15", amount: "1.00", direction: "expense", payee: "Rent", idempotency_key: key() }, u.token);
      expect(err.data.code).to.equal("internal_error");
    });
    expect(await stored()).to.deep.equal(before);
  });

  it("keeps the newest rows by date, then id, when many share the oldest kept date", async () => {
    const u = await server.createUser();
    const w = (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: key() }, u.token)).wallet.id;
    const made: string[] = [];
    for (let i = 0; i < LATEST_PER_PAYEE + 3; i++) {
      const date = i < 2 ? "2026-03-01" : "2026-02-01";
      made.push((await server.call("create_transaction", { wallet_id: w, date, amount: `${i + 1}.00`, direction: "expense", payee: "Floor", idempotency_key: key() }, u.token)).transaction.id);
    }
    await expectRight("with ties on the floor date", [u]);
    const kept = (await stored())[`${u.id}|floor`]!;
    expect(kept.floor).to.equal("2026-02-01");
    // Each row on the floor date, kept or not, deleted one at a time; then moved onto it and off it.
    const onFloor = made.slice(2);
    for (const id of onFloor.slice(0, 4)) {
      await server.call("delete_transaction", { transaction_id: id, idempotency_key: key() }, u.token);
      await expectRight(`after deleting ${id}`, [u]);
    }
    await server.call("update_transaction", { transaction_id: made[0], date: "2026-02-01", idempotency_key: key() }, u.token);
    await expectRight("after moving a row onto the floor date", [u]);
    await server.call("update_transaction", { transaction_id: onFloor[5], date: "2026-01-01", idempotency_key: key() }, u.token);
    await expectRight("after moving a row below the floor", [u]);
    await server.call("update_transaction", { transaction_id: onFloor[5], date: "2026-03-02", idempotency_key: key() }, u.token);
    await expectRight("after moving it back above", [u]);
  });

  it("follows an account export imported into another person, and an account deletion", async () => {
    const alex = await server.createUser();
    const blake = await server.createUser();
    const copy = await server.createUser();
    const w = async (who: TestUser) => (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: key() }, who.token)).wallet.id as string;
    const aw = await w(alex);
    const bw = await w(blake);
    for (const [i, m] of ["2025-09", "2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03"].entries()) {
      for (const who of [alex, blake]) {
        const walletId = who === alex ? aw : bw;
        await server.call("create_transaction", { wallet_id: walletId, date: `${m}-02`, amount: "10.99", direction: "expense", payee: "Spotify", idempotency_key: key() }, who.token);
        await server.call("create_transaction", { wallet_id: walletId, date: `${m}-0${(i % 7) + 1}`, amount: `${20 + i}.00`, direction: "expense", payee: "Cafe", idempotency_key: key() }, who.token);
        await server.call("create_transaction", { wallet_id: walletId, date: `${m}-1${i}`, amount: `${30 + i}.00`, direction: "expense", payee: "Cafe", idempotency_key: key() }, who.token);
      }
    }
    await expectRight("before the export", [alex, blake]);
    await importAccount(server.db, copy.id, await exportAccount(server.db, alex.id, NOW));
    await expectRight("after the import", [alex, blake, copy]);
    expect((await answers(copy)).listed).to.have.length.greaterThan(0);
    expect(Object.keys(await stored()).filter((k) => k.startsWith(`${copy.id}|`))).to.have.length(2);

    await deleteAccount(server.db, alex.id);
    expect(await server.db("recurring_payees").where({ user_id: alex.id })).to.have.length(0);
    await expectRight("after deleting an account", [blake, copy]);
  });
});
