/**
 * The recurring-payee summary of a bulk insert (migration 20261128150000,
 * docs/decisions.md#recurring-payees-set-based): on Postgres an INSERT statement refreshes all its payees
 * in one set-based upsert; on SQLite the row triggers refresh each row as before.
 *
 * - Same summary: the same rows (2,000 new distinct payees, spellings of one payee, rows above and
 *   below an existing payee's floor, a payee crossing the kept count, ties on a date, rows without a
 *   payee) inserted 500 to a statement, then one row to a statement, then (Postgres) refreshed payee by
 *   payee with the per-payee function the row triggers call, give the same summary; and it is the one a
 *   from-scratch reading of the transactions gives.
 * - Bounded: on Postgres the bulk insert's transaction holds one advisory lock and a bounded number of
 *   relation locks, called the per-payee refresh function zero times and the statement trigger once per
 *   statement; meanwhile another person's write through the tools is answered at once (it is not queued
 *   behind the open transaction). On SQLite (one writer) the other person's write is answered after it.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { LATEST_PER_PAYEE } from "../../src/domain/recurring/store.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PAYEES = 2000;
/** Rows per INSERT: SQLite's bound on a compound SELECT (knex's multi-row insert) is 500. */
const STATEMENT_ROWS = 500;

type Row = Record<string, unknown>;
type Summary = Record<string, { latest: unknown; floor: string | null }>;

describe(`the recurring summary of a bulk insert (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let userId: string;
  let otherToken: string;
  let otherWallet: string;
  let model: Row;
  before(async () => {
    server = await startTestServer();
    const u = await server.createUser();
    const other = await server.createUser();
    userId = u.id;
    otherToken = other.token;
    const w = (await server.call("create_wallet", { name: "Main", type: "checking", currency: "USD", idempotency_key: randomUUID() }, u.token)).wallet.id;
    otherWallet = (await server.call("create_wallet", { name: "Other", type: "checking", currency: "USD", idempotency_key: randomUUID() }, other.token)).wallet
      .id;
    await server.call(
      "create_transaction",
      { wallet_id: w, date: "2024-01-01", amount: "1.00", direction: "expense", payee: "Model", idempotency_key: randomUUID() },
      u.token,
    );
    model = (await server.db("transactions").where({ user_id: u.id }).first()) as Row;
    // History before the bulk insert: Netflix and Gym past the kept count (a floor), Rare under it.
    const history: Row[] = [];
    for (let m = 1; m <= 20; m++) history.push(row(`hist_netflix${m}`, "Netflix", `2024-${month(m)}-05`, -1599));
    for (let m = 1; m <= 13; m++) history.push(row(`hist_gym${m}`, "Gym", `2025-${month(m)}-01`, -4000));
    for (let m = 1; m <= 2; m++) history.push(row(`hist_rare${m}`, "Rare", `2025-0${m}-10`, -500));
    await server.db("transactions").insert(history);
  });
  after(async () => server?.close());

  const month = (m: number) => String(((m - 1) % 12) + 1).padStart(2, "0");

  function row(id: string, payee: string | null, date: string, amount: number): Row {
    return { ...model, id: `txn_${id.padStart(16, "0")}`, payee, date, amount_minor: amount, external_id: null };
  }

  /** The bulk: 2,000 new payees and the cases the floor and the ordering must get right. */
  function bulkRows(): Row[] {
    const rows: Row[] = [];
    for (let i = 0; i < PAYEES; i++)
      rows.push(row(`bulk_payee${String(i).padStart(5, "0")}`, `Payee ${i}`, `2026-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, "0")}`, -100 - i));
    // Spellings of one payee, 15 rows on three dates (ties broken by id), spread over statements.
    for (let i = 0; i < 15; i++)
      rows.splice(
        137 * i,
        0,
        row(`bulk_shop${String(i).padStart(3, "0")}`, ["Corner Shop", "CORNER SHOP", "corner shop"][i % 3]!, `2026-02-0${1 + (i % 3)}`, -300 - i),
      );
    // Netflix: older than its floor (no change), and newer, one on a kept date (a tie).
    rows.splice(500, 0, row("bulk_netflix_old1", "Netflix", "2024-02-01", -1599), row("bulk_netflix_new1", "netflix", "2024-08-05", -1699));
    rows.splice(1500, 0, row("bulk_netflix_new2", "Netflix", "2026-01-05", -1799), row("bulk_netflix_old2", "Netflix", "2023-12-31", -1599));
    // Gym: only below its floor (skipped). Rare: crosses the kept count (its floor appears).
    rows.splice(900, 0, row("bulk_gym_old", "Gym", "2024-06-01", -4000));
    for (let i = 0; i < 12; i++) rows.splice(80 * i + 3, 0, row(`bulk_rare${String(i).padStart(2, "0")}`, "Rare", `2025-${month(i + 3)}-10`, -500));
    // Rows without a payee are never summarised.
    for (let i = 0; i < 5; i++) rows.splice(400 * i, 0, row(`bulk_nopayee${i}`, null, "2026-03-01", -1));
    return rows;
  }

  async function summary(db: Knex | Knex.Transaction): Promise<Summary> {
    const out: Summary = {};
    for (const r of await db("recurring_payees").where({ user_id: userId }).orderBy("payee_key")) {
      out[r.payee_key as string] = { latest: JSON.parse(r.latest as string), floor: (r.floor_date as string | null) ?? null };
    }
    return out;
  }

  /** The summary read from the transactions themselves (never from the table it checks). */
  async function fromScratch(db: Knex.Transaction): Promise<Summary> {
    const rows = await db
      .select(db.raw("lower(payee) AS k"), "payee", "date", "amount_minor", "currency", "direction", "wallet_id")
      .from("transactions")
      .where({ user_id: userId })
      .whereNotNull("payee")
      .orderByRaw("lower(payee), date DESC, id DESC");
    const out: Summary = {};
    for (const r of rows) {
      const entry = (out[r.k as string] ??= { latest: [], floor: null });
      const latest = entry.latest as unknown[][];
      if (latest.length < LATEST_PER_PAYEE) latest.push([r.payee, r.date, String(BigInt(r.amount_minor as string)), r.currency, r.direction, r.wallet_id]);
    }
    for (const entry of Object.values(out)) {
      const latest = entry.latest as string[][];
      entry.floor = latest.length === LATEST_PER_PAYEE ? latest[LATEST_PER_PAYEE - 1]![1]! : null;
    }
    return out;
  }

  it(`gives the summary row-by-row refreshes give, for ${PAYEES} new payees and the floor's cases`, async () => {
    const rows = bulkRows();

    /** What `run` leaves, read inside its transaction, which is then rolled back. */
    const within = async <T>(run: (trx: Knex.Transaction) => Promise<T>): Promise<T> => {
      const trx = await server.db.transaction();
      try {
        return await run(trx);
      } finally {
        await trx.rollback();
      }
    };
    const [bulkSummary, scratch] = await within(async (bulk) => {
      for (let i = 0; i < rows.length; i += STATEMENT_ROWS) await bulk("transactions").insert(rows.slice(i, i + STATEMENT_ROWS));
      return [await summary(bulk), await fromScratch(bulk)] as const;
    });
    const [singleSummary, perPayee] = await within(async (single) => {
      for (const r of rows) await single("transactions").insert(r);
      const singleSummary = await summary(single);
      if (engine !== "postgres") return [singleSummary, undefined] as const;
      // The per-payee refresh the row triggers call, run for every payee of the person from what is stored.
      await single.raw("DELETE FROM recurring_payees WHERE user_id = ?", [userId]);
      await single.raw(
        "SELECT recurring_payees_refresh(user_id, k) FROM (SELECT DISTINCT user_id, lower(payee) AS k FROM transactions WHERE user_id = ? AND payee IS NOT NULL) AS p",
        [userId],
      );
      return [singleSummary, await summary(single)] as const;
    });

    expect(Object.keys(bulkSummary)).to.have.length(PAYEES + 5); // + model, netflix, gym, rare, corner shop
    expect(bulkSummary["rare"]!.floor, "Rare crossed the kept count").to.be.a("string");
    expect(bulkSummary["gym"]!.floor).to.equal("2025-01-01");
    expect((bulkSummary["corner shop"]!.latest as string[][]).map((r) => r[0])).to.have.length(LATEST_PER_PAYEE);
    expect(bulkSummary).to.deep.equal(scratch);
    expect(bulkSummary).to.deep.equal(singleSummary);
    if (perPayee) expect(bulkSummary).to.deep.equal(perPayee);
  });

  it(`inserts ${PAYEES} payees with bounded locks, and another person's write is answered meanwhile`, async () => {
    const rows = bulkRows().map((r) => ({ ...r, id: `${r.id as string}L` }));
    const otherWrite = () =>
      server.call(
        "create_transaction",
        { wallet_id: otherWallet, date: "2026-03-01", amount: "2.00", direction: "expense", payee: "Bakery", idempotency_key: randomUUID() },
        otherToken,
      );
    const statements = Math.ceil(rows.length / STATEMENT_ROWS);

    if (engine === "sqlite") {
      await server.db.transaction(async (trx) => {
        for (let i = 0; i < rows.length; i += STATEMENT_ROWS) await trx("transactions").insert(rows.slice(i, i + STATEMENT_ROWS));
      });
      const answered = await otherWrite();
      expect(answered.transaction.id).to.be.a("string");
      expect(Object.keys(await summary(server.db))).to.include("payee 1999");
      return;
    }

    const trx = await server.db.transaction();
    try {
      await trx.raw("SET LOCAL track_functions = 'pl'");
      for (let i = 0; i < rows.length; i += STATEMENT_ROWS) await trx("transactions").insert(rows.slice(i, i + STATEMENT_ROWS));
      const locks = (
        await trx.raw(
          `SELECT count(*) FILTER (WHERE locktype = 'advisory')::int AS advisory, count(*) FILTER (WHERE locktype = 'relation')::int AS relation,
                  count(*)::int AS total FROM pg_locks WHERE pid = pg_backend_pid()`,
        )
      ).rows[0] as { advisory: number; relation: number; total: number };
      const calls = Object.fromEntries(
        (await trx.raw("SELECT funcname, calls::int AS calls FROM pg_stat_xact_user_functions WHERE funcname LIKE 'recurring_payees_%'")).rows.map(
          (r: { funcname: string; calls: number }) => [r.funcname, r.calls],
        ),
      );
      expect(locks.advisory, "advisory locks held by the bulk insert's transaction").to.equal(1);
      // The tables and indexes the statements touched, whatever the number of payees (one per payee before 20261128130000).
      expect(locks.relation, "relation locks held").to.be.below(60);
      expect(calls["recurring_payees_follow_insert"], "statement trigger calls").to.equal(statements);
      expect(calls["recurring_payees_refresh"] ?? 0, "per-payee refresh calls").to.equal(0);

      // Another person's write while the bulk transaction is open, its locks held: answered, not queued.
      // (Queued behind it, the write would wait until its lock_timeout and answer unavailable.)
      const answered = await otherWrite();
      expect(answered.transaction.id).to.be.a("string");
      expect(Object.keys(await summary(trx))).to.include("payee 1999");
      await trx.commit();
    } catch (err) {
      await trx.rollback().catch(() => undefined);
      throw err;
    }
  });
});
