/**
 * The write pipeline as the wallet and transaction tools use it, on the engine FINANCE_TEST_ENGINE names:
 * replays, reused keys, 20 concurrent duplicates (from two server processes on Postgres), dry runs that
 * change nothing, exactly one audit row with before/after per committed write, change events, failures
 * that leave no trace, and every tool called by another user with this user's ids.
 */
import { expect } from "chai";
import type { AuditEntry } from "../../src/audit/log.js";
import { engine } from "../helpers/database.js";
import { withFailingInsert } from "../helpers/forced-failure.js";
import { startServerProcess } from "../helpers/process.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { SseReader } from "../protocol/helpers.js";
import { countRows, key } from "./ledger-fixture.js";

describe(`write pipeline on wallets and transactions (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T12:00:00Z") });
  });
  after(async () => server?.close());

  const wallet = async (u: TestUser, name: string, currency = "USD") =>
    (
      await server.call(
        "create_wallet",
        { name, type: "checking", currency, opening_balance: currency === "JPY" ? "100" : "100.00", idempotency_key: key() },
        u.token,
      )
    ).wallet;
  const auditRows = (k: string) => server.db("audit_log").where({ idempotency_key: k });
  const keyRows = (userId: string, k: string) => server.db("idempotency_keys").where({ user_id: userId, key: k });

  describe("idempotency", () => {
    it("replays the first response for the same key and arguments (in any key order) and leaves one row", async () => {
      const u = await server.createUser();
      const w = await wallet(u, "Checking");
      const w2 = await wallet(u, "Savings");
      const k = key();
      const params = { wallet_id: w.id, to_wallet_id: w2.id, direction: "transfer", amount: "25.00", date: "2026-03-01", tags: ["rent"], idempotency_key: k };
      const first = await server.call("create_transaction", params, u.token);
      expect(first.status).to.equal("committed");
      const reordered = Object.fromEntries(Object.entries(params).reverse());
      const second = await server.call("create_transaction", reordered, u.token);
      expect(second).to.deep.equal({ ...first, status: "replayed" });
      expect(await server.db("transactions").where({ user_id: u.id })).to.have.length(2); // the two legs, once
      expect(await auditRows(k)).to.have.length(1);
      expect(await keyRows(u.id, k)).to.have.length(1);
      // A replay of a wallet write too.
      const wk = key();
      const created = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "EUR", idempotency_key: wk }, u.token);
      expect(await server.call("create_wallet", { currency: "EUR", type: "cash", name: "Cash", idempotency_key: wk }, u.token)).to.deep.equal({
        ...created,
        status: "replayed",
      });
      expect(await server.db("wallets").where({ user_id: u.id, name: "Cash" })).to.have.length(1);
    });

    it("refuses the same key with other arguments or another tool (idempotency_key_reused) and changes nothing", async () => {
      const u = await server.createUser();
      const w = await wallet(u, "Checking");
      const k = key();
      await server.call("create_transaction", { wallet_id: w.id, direction: "expense", amount: "1.00", idempotency_key: k }, u.token);
      const before = await countRows(server.db);
      const other = await server.callError("create_transaction", { wallet_id: w.id, direction: "expense", amount: "2.00", idempotency_key: k }, u.token);
      expect(other.data).to.include({ code: "idempotency_key_reused", field: "idempotency_key" });
      const tool = await server.callError("update_wallet", { wallet_id: w.id, notes: "x", idempotency_key: k }, u.token);
      expect(tool.data.code).to.equal("idempotency_key_reused");
      expect(await countRows(server.db)).to.deep.equal(before);
      expect((await server.db("wallets").where({ id: w.id }).first()).notes).to.equal(null);
    });

    it("scopes keys per user: another user's identical key executes for that user alone", async () => {
      const a = await server.createUser();
      const b = await server.createUser();
      const k = key();
      const ra = await server.call("create_wallet", { name: "Same", type: "cash", currency: "USD", idempotency_key: k }, a.token);
      const rb = await server.call("create_wallet", { name: "Same", type: "cash", currency: "USD", idempotency_key: k }, b.token);
      expect(rb.status).to.equal("committed");
      expect(rb.wallet.id).to.not.equal(ra.wallet.id);
      expect((await server.db("wallets").where({ id: rb.wallet.id }).first()).user_id).to.equal(b.id);
    });

    it(`makes exactly one write of 20 concurrent calls with one key${engine === "postgres" ? " from two server processes" : ""}`, async () => {
      const u = await server.createUser();
      const w = await wallet(u, "Checking");
      const w2 = await wallet(u, "Savings");
      const second = engine === "postgres" ? await startServerProcess(server.database.url, { RATE_LIMIT_MCP_PER_MINUTE: "1000000" }) : undefined;
      try {
        const k = key();
        const params = { wallet_id: w.id, to_wallet_id: w2.id, direction: "transfer", amount: "10.00", date: "2026-03-02", idempotency_key: k };
        const callAt = async (url: string, id: number) => {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${u.token}` },
            body: JSON.stringify({ jsonrpc: "2.0", id, method: "create_transaction", params }),
          });
          const body = (await res.json()) as {
            result?: { status: string; transaction: { id: string } };
            error?: { data: { code: string; retryable: boolean } };
          };
          return body;
        };
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => callAt(second && i % 2 === 1 ? second.mcpUrl : server.mcpUrl, i + 1)));
        const outcome = answers.map((a) => a.result?.status ?? a.error?.data.code);
        const counts = outcome.reduce<Record<string, number>>((acc, s) => ({ ...acc, [String(s)]: (acc[String(s)] ?? 0) + 1 }), {});
        expect(counts.committed, JSON.stringify(counts)).to.equal(1);
        expect((counts.replayed ?? 0) + (counts.idempotency_key_in_use ?? 0), JSON.stringify(counts)).to.equal(19);
        for (const a of answers) if (a.error) expect(a.error.data.retryable).to.equal(true);
        const ids = new Set(answers.filter((a) => a.result).map((a) => a.result!.transaction.id));
        expect(ids.size).to.equal(1);
        expect(await server.db("transactions").where({ user_id: u.id })).to.have.length(2);
        expect(await auditRows(k)).to.have.length(1);
        expect(await keyRows(u.id, k)).to.have.length(1);
        // Whoever was told "in use" gets the stored answer on retry.
        const retry = await server.call("create_transaction", params, u.token);
        expect(retry.status).to.equal("replayed");
        expect(retry.transaction.id).to.equal([...ids][0]);
      } finally {
        await second?.stop();
      }
    });
  });

  describe("dry run", () => {
    it("changes no row, audit entry or key for any wallet or transaction write; the key stays free", async () => {
      const u = await server.createUser();
      const w = await wallet(u, "Checking");
      const w2 = await wallet(u, "Savings");
      const empty = await wallet(u, "Empty");
      const t = (
        await server.call("create_transaction", { wallet_id: w.id, direction: "expense", amount: "4.00", tags: ["a"], idempotency_key: key() }, u.token)
      ).transaction;
      const tr = await server.call(
        "create_transaction",
        { wallet_id: w.id, to_wallet_id: w2.id, direction: "transfer", amount: "3.00", idempotency_key: key() },
        u.token,
      );
      const calls: [string, Record<string, unknown>][] = [
        ["create_wallet", { name: "New", type: "cash", currency: "USD", opening_balance: "5.00" }],
        ["update_wallet", { wallet_id: w.id, name: "Renamed", archived: true }],
        ["delete_wallet", { wallet_id: empty.id }],
        ["create_transaction", { wallet_id: w.id, to_wallet_id: w2.id, direction: "transfer", amount: "8.00", tags: ["x", "y"] }],
        ["update_transaction", { transaction_id: tr.counterpart.id, amount: "9.00", tags: ["z"] }],
        ["delete_transaction", { transaction_id: tr.transaction.id }],
        ["update_transaction", { transaction_id: t.id, direction: "income", payee: null }],
        ["delete_transaction", { transaction_id: t.id }],
      ];
      const snapshot = async () => ({
        counts: await countRows(server.db),
        wallets: await server.db("wallets").where({ user_id: u.id }).orderBy("id"),
        transactions: await server.db("transactions").where({ user_id: u.id }).orderBy("id"),
        tags: await server.db("transaction_tags").where({ user_id: u.id }).orderBy(["transaction_id", "tag"]),
      });
      for (const [tool, params] of calls) {
        const k = key();
        const before = await snapshot();
        const preview = await server.call(tool, { ...params, idempotency_key: k, dry_run: true }, u.token);
        expect(preview.status, tool).to.equal("dry_run");
        expect(preview.audit_id, tool).to.equal(null);
        expect(await snapshot(), tool).to.deep.equal(before);
        expect(await keyRows(u.id, k), tool).to.have.length(0);
        // The same key then commits, with the answer the preview showed (new ids aside).
        const real = await server.call(tool, { ...params, idempotency_key: k }, u.token);
        expect(real.status, tool).to.equal("committed");
        if (!tool.startsWith("create")) expect({ ...real, status: "dry_run", audit_id: null }, tool).to.deep.equal(preview);
        else expect(Object.keys(real).sort(), tool).to.deep.equal(Object.keys(preview).sort());
      }
    });

    it("checks in a dry run what a real call checks (references, ownership, business rules)", async () => {
      const u = await server.createUser();
      const other = await server.createUser();
      const w = await wallet(u, "Checking");
      const theirs = await wallet(other, "Theirs");
      const yen = await wallet(u, "Yen", "JPY");
      const dry = (tool: string, params: Record<string, unknown>) => server.callError(tool, { ...params, idempotency_key: key(), dry_run: true }, u.token);
      expect((await dry("create_transaction", { wallet_id: theirs.id, direction: "expense", amount: "1.00" })).data.code).to.equal("not_found");
      expect((await dry("create_transaction", { wallet_id: w.id, to_wallet_id: yen.id, direction: "transfer", amount: "1.00" })).data.field).to.equal(
        "to_wallet_id",
      );
      expect((await dry("create_wallet", { name: "checking", type: "cash", currency: "USD" })).data.code).to.equal("conflict");
      await server.call("create_transaction", { wallet_id: w.id, direction: "expense", amount: "1.00", idempotency_key: key() }, u.token);
      expect((await dry("delete_wallet", { wallet_id: w.id })).data.code).to.equal("wallet_not_empty");
    });
  });

  describe("audit log and change events", () => {
    it("writes exactly one audit row with before and after per committed write, and publishes it", async () => {
      const u = await server.createUser();
      const events: AuditEntry[] = [];
      const unsubscribe = server.services.bus.subscribe(u.id, (e) => events.push(e));
      try {
        const run = async (tool: string, params: Record<string, unknown>) => {
          const k = key();
          const res = await server.call(tool, { ...params, idempotency_key: k }, u.token);
          await server.call(tool, { ...params, idempotency_key: k }, u.token); // a replay adds no row
          const rows = await auditRows(k);
          expect(rows, tool).to.have.length(1);
          const row = rows[0];
          expect(String(row.id)).to.equal(res.audit_id);
          expect(row).to.include({ user_id: u.id, tool, idempotency_key: k });
          expect(row.token_id).to.match(/^tok_/);
          expect(row.request_id).to.be.a("string").and.not.equal("");
          return {
            res,
            row,
            before: row.before_json == null ? null : JSON.parse(row.before_json),
            after: row.after_json == null ? null : JSON.parse(row.after_json),
          };
        };

        const cw = await run("create_wallet", { name: "Main", type: "checking", currency: "USD", opening_balance: "10.00" });
        expect(cw.row).to.include({ action: "create", resource_type: "wallet", resource_id: cw.res.wallet.id });
        expect(cw.before).to.equal(null);
        expect(cw.after).to.deep.equal(cw.res.wallet);
        const w2 = (await run("create_wallet", { name: "Other", type: "savings", currency: "USD" })).res.wallet;

        const uw = await run("update_wallet", { wallet_id: cw.res.wallet.id, notes: "hello" });
        expect(uw.row).to.include({ action: "update", resource_type: "wallet", resource_id: cw.res.wallet.id });
        expect(uw.before).to.deep.equal(cw.res.wallet);
        expect(uw.after).to.deep.equal(uw.res.wallet);

        const ct = await run("create_transaction", { wallet_id: cw.res.wallet.id, to_wallet_id: w2.id, direction: "transfer", amount: "2.50" });
        expect(ct.row).to.include({ action: "create", resource_type: "transaction", resource_id: ct.res.transaction.id });
        expect(ct.before).to.equal(null);
        expect(ct.after).to.deep.equal({ transaction: ct.res.transaction, counterpart: ct.res.counterpart });

        const ut = await run("update_transaction", { transaction_id: ct.res.transaction.id, amount: "3.00", category: "Moving" });
        expect(ut.row).to.include({ action: "update", resource_type: "transaction", resource_id: ct.res.transaction.id });
        expect(ut.before).to.deep.equal({ transaction: ct.res.transaction, counterpart: ct.res.counterpart });
        expect(ut.after).to.deep.equal({ transaction: ut.res.transaction, counterpart: ut.res.counterpart });

        const dt = await run("delete_transaction", { transaction_id: ct.res.counterpart.id });
        expect(dt.row).to.include({ action: "delete", resource_type: "transaction", resource_id: ct.res.counterpart.id });
        expect(dt.before).to.deep.equal({ transaction: ut.res.counterpart, counterpart: ut.res.transaction });
        expect(dt.after).to.equal(null);

        const dw = await run("delete_wallet", { wallet_id: w2.id });
        expect(dw.row).to.include({ action: "delete", resource_type: "wallet", resource_id: w2.id });
        expect(dw.before).to.deep.equal(dw.res.wallet);
        expect(dw.after).to.equal(null);

        const all = await server.db("audit_log").where({ user_id: u.id }).orderBy("id");
        expect(all).to.have.length(7);
        // Each committed write reaches the user's stream once, in order (via LISTEN/NOTIFY on Postgres).
        const deadline = Date.now() + 5000;
        while (events.length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        expect(events.map((e) => e.id)).to.deep.equal(all.map((r: any) => String(r.id)));
        expect(events.map((e) => e.tool)).to.deep.equal([
          "create_wallet",
          "create_wallet",
          "update_wallet",
          "create_transaction",
          "update_transaction",
          "delete_transaction",
          "delete_wallet",
        ]);
      } finally {
        unsubscribe();
      }
    });
  });

  describe("SSE change events", () => {
    it(`reach the user's open stream for every wallet and transaction write${engine === "postgres" ? ", also when committed by another server process" : ""}`, async () => {
      const u = await server.createUser();
      const other = await server.createUser();
      const stream = await SseReader.open(`${server.url}/api/v1/mcp/sse`, { authorization: `Bearer ${u.token}` });
      const second = engine === "postgres" ? await startServerProcess(server.database.url, { RATE_LIMIT_MCP_PER_MINUTE: "1000000" }) : undefined;
      try {
        await stream.endpoint();
        const callOn = async (url: string, tool: string, params: Record<string, unknown>) => {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${u.token}` },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: tool, params: { ...params, idempotency_key: key() } }),
          });
          return ((await res.json()) as { result: any }).result;
        };
        const w = (await callOn(server.mcpUrl, "create_wallet", { name: "Main", type: "checking", currency: "USD" })).wallet;
        const w2 = (await callOn(second?.mcpUrl ?? server.mcpUrl, "create_wallet", { name: "Second", type: "savings", currency: "USD" })).wallet;
        const t = await callOn(second?.mcpUrl ?? server.mcpUrl, "create_transaction", {
          wallet_id: w.id,
          to_wallet_id: w2.id,
          direction: "transfer",
          amount: "1.00",
        });
        await callOn(server.mcpUrl, "update_transaction", { transaction_id: t.transaction.id, amount: "2.00" });
        await callOn(server.mcpUrl, "update_wallet", { wallet_id: w.id, notes: "n" });
        await callOn(server.mcpUrl, "delete_transaction", { transaction_id: t.counterpart.id });
        await callOn(second?.mcpUrl ?? server.mcpUrl, "delete_wallet", { wallet_id: w2.id });
        await server.call("create_wallet", { name: "Not yours", type: "cash", currency: "USD", idempotency_key: key() }, other.token);
        await server.call("create_wallet", { name: "Preview", type: "cash", currency: "USD", idempotency_key: key(), dry_run: true }, u.token);
        const audit = await server.db("audit_log").where({ user_id: u.id }).orderBy("id");
        expect(audit).to.have.length(7);
        await stream.until(() => audit.every((a: any) => stream.events.some((e) => e.id === String(a.id))), 5000, "the seven change events");
        await new Promise((r) => setTimeout(r, 150));
        const changes = stream.events.filter((e) => e.id !== undefined).map((e) => JSON.parse(e.data));
        expect(changes.map((c) => c.method)).to.deep.equal(Array(7).fill("notifications/finance/changed"));
        expect(changes.map((c) => [c.params.audit_id, c.params.tool, c.params.action, c.params.resource_type, c.params.resource_id])).to.deep.equal(
          audit.map((a: any) => [String(a.id), a.tool, a.action, a.resource_type, a.resource_id]),
        );
      } finally {
        stream.close();
        await second?.stop();
      }
    });
  });

  describe("failures leave no trace", () => {
    it("a transfer to another user's wallet is refused with nothing written, and the key stays free", async () => {
      const u = await server.createUser();
      const other = await server.createUser();
      const w = await wallet(u, "Mine");
      const theirs = await wallet(other, "Theirs");
      const mine2 = await wallet(u, "Mine too");
      const before = await countRows(server.db);
      const k = key();
      const err = await server.callError(
        "create_transaction",
        { wallet_id: w.id, to_wallet_id: theirs.id, direction: "transfer", amount: "5.00", tags: ["t"], idempotency_key: k },
        u.token,
      );
      expect(err.data).to.include({ code: "not_found", field: "to_wallet_id" });
      expect(await countRows(server.db)).to.deep.equal(before);
      expect(await keyRows(u.id, k)).to.have.length(0);
      expect(await auditRows(k)).to.have.length(0);
      // Nothing was claimed, so the same key can carry the corrected call.
      const fixed = await server.call(
        "create_transaction",
        { wallet_id: w.id, to_wallet_id: mine2.id, direction: "transfer", amount: "5.00", tags: ["t"], idempotency_key: k },
        u.token,
      );
      expect(fixed.status).to.equal("committed");
    });

    it("a failure after the rows were written (forced in the audit insert) rolls back rows, tags, key and audit", async () => {
      const u = await server.createUser();
      const w = await wallet(u, "Mine");
      const w2 = await wallet(u, "Mine too");
      const k = key();
      const params = { wallet_id: w.id, to_wallet_id: w2.id, direction: "transfer", amount: "6.00", tags: ["forced"], idempotency_key: k };
      const before = await countRows(server.db);
      const err = await withFailingInsert(server.db, "audit_log", () => server.callError("create_transaction", params, u.token), {
        column: "tool",
        value: "create_transaction",
      });
      expect(err.data.code).to.equal("internal_error");
      expect(JSON.stringify(err)).to.not.include("forced failure"); // no internals in the answer
      expect(await countRows(server.db)).to.deep.equal(before);
      expect(await server.db("transactions").where({ user_id: u.id })).to.have.length(0);
      expect(await server.db("transaction_tags").where({ user_id: u.id })).to.have.length(0);
      expect(await keyRows(u.id, k)).to.have.length(0);
      const retry = await server.call("create_transaction", params, u.token);
      expect(retry.status).to.equal("committed");
      expect(await server.db("transactions").where({ user_id: u.id })).to.have.length(2);
      expect(await auditRows(k)).to.have.length(1);
    });
  });

  describe("another user's ids", () => {
    it("answers every wallet and transaction tool like a missing id (not_found), and A's data is unchanged", async () => {
      const a = await server.createUser();
      const b = await server.createUser();
      const aw = await wallet(a, "A main");
      const aw2 = await wallet(a, "A savings");
      const at = (
        await server.call(
          "create_transaction",
          { wallet_id: aw.id, direction: "expense", amount: "12.00", payee: "Secret", tags: ["private"], idempotency_key: key() },
          a.token,
        )
      ).transaction;
      await server.call(
        "create_transaction",
        { wallet_id: aw.id, to_wallet_id: aw2.id, direction: "transfer", amount: "1.00", idempotency_key: key() },
        a.token,
      );
      const bw = await wallet(b, "B main");
      const bt = (await server.call("create_transaction", { wallet_id: bw.id, direction: "expense", amount: "3.00", idempotency_key: key() }, b.token))
        .transaction;

      const snapshot = async () => ({
        wallets: await server.db("wallets").where({ user_id: a.id }).orderBy("id"),
        transactions: await server.db("transactions").where({ user_id: a.id }).orderBy("id"),
        tags: await server.db("transaction_tags").where({ user_id: a.id }).orderBy(["transaction_id", "tag"]),
        audit: await server.db("audit_log").where({ user_id: a.id }).count({ n: "*" }),
      });
      const before = await snapshot();

      const missingWallet = "wal_0000000000000000000000";
      const missingTxn = "txn_0000000000000000000000";
      // [tool, params with A's id, the same params with a missing id, the field named]
      const calls: [string, (wal: string, txn: string) => Record<string, unknown>, string][] = [
        ["get_wallet_balance", (wal) => ({ wallet_id: wal }), "wallet_id"],
        ["update_wallet", (wal) => ({ wallet_id: wal, name: "Hijacked", idempotency_key: key() }), "wallet_id"],
        ["update_wallet", (wal) => ({ wallet_id: wal, archived: true, idempotency_key: key(), dry_run: true }), "wallet_id"],
        ["delete_wallet", (wal) => ({ wallet_id: wal, idempotency_key: key() }), "wallet_id"],
        ["list_transactions", (wal) => ({ wallet_id: wal }), "wallet_id"],
        ["get_transaction_summary", (wal) => ({ wallet_id: wal, date_from: "2000-01-01", date_to: "2100-01-01" }), "wallet_id"],
        ["create_transaction", (wal) => ({ wallet_id: wal, direction: "income", amount: "1000.00", idempotency_key: key() }), "wallet_id"],
        [
          "create_transaction",
          (wal) => ({ wallet_id: bw.id, to_wallet_id: wal, direction: "transfer", amount: "1.00", idempotency_key: key() }),
          "to_wallet_id",
        ],
        ["update_transaction", (_w, txn) => ({ transaction_id: txn, amount: "0.01", idempotency_key: key() }), "transaction_id"],
        ["update_transaction", (wal) => ({ transaction_id: bt.id, wallet_id: wal, idempotency_key: key() }), "wallet_id"],
        ["delete_transaction", (_w, txn) => ({ transaction_id: txn, idempotency_key: key() }), "transaction_id"],
        ["delete_transaction", (_w, txn) => ({ transaction_id: txn, idempotency_key: key(), dry_run: true }), "transaction_id"],
      ];
      for (const [tool, make, field] of calls) {
        const theirs = await server.callError(tool, make(aw.id, at.id), b.token);
        const missing = await server.callError(tool, make(missingWallet, missingTxn), b.token);
        expect(theirs.data, tool).to.deep.equal({ code: "not_found", retryable: false, field, expected: missing.data.expected });
        expect(theirs.code, tool).to.equal(missing.code);
        expect(theirs.message.replace(field === "transaction_id" ? at.id : aw.id, "ID"), tool).to.equal(
          missing.message.replace(field === "transaction_id" ? missingTxn : missingWallet, "ID"),
        );
      }
      // Lists and totals of B never contain A's data.
      const bList = await server.call("list_wallets", { include_archived: true }, b.token);
      expect(bList.wallets.map((w: any) => w.id)).to.deep.equal([bw.id]);
      const bTx = await server.call("list_transactions", { query: "Secret" }, b.token);
      expect(bTx).to.deep.equal({ transactions: [], next_cursor: null, total_count: 0 });
      expect((await server.call("list_transactions", { tags_any: ["private"] }, b.token)).total_count).to.equal(0);
      const bSum = await server.call("get_transaction_summary", { date_from: "2000-01-01", date_to: "2100-01-01", group_by: "wallet" }, b.token);
      expect(bSum.groups.map((g: any) => g.key)).to.deep.equal([bw.id]);
      const bBal = await server.call("get_wallet_balance", {}, b.token);
      expect(bBal.wallets.map((w: any) => w.wallet_id)).to.deep.equal([bw.id]);
      // B may reuse A's wallet name: names are unique per user.
      expect((await server.call("create_wallet", { name: "A main", type: "cash", currency: "USD", idempotency_key: key() }, b.token)).status).to.equal(
        "committed",
      );

      expect(await snapshot()).to.deep.equal(before);
    });
  });
});
