/**
 * A person's journey over MCP with the official SDK client, asserted by value: a statement import, a bulk
 * edit committed with its preview id and undone, a delete that takes a refund along and its undo, a
 * forecast, and list_changes naming every row each change touched. Every call must succeed the first
 * time: a write refused as `unavailable` (its row capture missing) fails the journey, as does an undo
 * that finds no rows.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export type Call = (tool: string, args: Record<string, unknown>) => Promise<any>;

/** An MCP session as a chatbot holds it: the SDK client with the person's token. */
export async function connect(mcpUrl: string, token: string): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new Client({ name: "deployed-journey", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const call: Call = async (tool, args) => {
    const write = "idempotency_key" in args || /^(create|update|delete|import|undo|add|set|save)_/.test(tool);
    const res = await client.callTool({ name: tool, arguments: write && !("idempotency_key" in args) ? { idempotency_key: randomUUID(), ...args } : args });
    if (res.isError) throw new Error(`${tool} failed: ${JSON.stringify(res.structuredContent ?? res.content)}`);
    return res.structuredContent;
  };
  return { call, close: () => client.close() };
}

/** The day `n` days before today (UTC: the journey's person lives in UTC). */
export const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/**
 * The reproduction of issue 47: a write, then its undo as a dry run, which must find the write's rows.
 * Run after each CLI command beside the live server.
 */
export async function writeThenUndoPreview(call: Call, walletId: string): Promise<void> {
  const made = await call("create_transaction", { wallet_id: walletId, amount: "1.00", direction: "expense", payee: "Probe", date: daysAgo(0) });
  const preview = await call("undo_change", { audit_id: made.audit_id, dry_run: true });
  expect(preview.rows.map((r: { id: string; action: string }) => [r.id, r.action])).to.deep.include([made.transaction.id, "delete"]);
  await call("undo_change", { audit_id: made.audit_id });
}

export interface JourneyOutcome {
  walletId: string;
  importAuditId: string;
  importedIds: string[];
}

/** What a page of list_transactions says of each row: id → [amount, payee, category]. */
async function ledger(call: Call, walletId: string): Promise<Map<string, [string, string | null, string | null]>> {
  const page = await call("list_transactions", { wallet_id: walletId, limit: 100 });
  return new Map(
    (page.transactions as { id: string; amount: { value: string }; payee?: string; category?: string }[]).map((t) => [
      t.id,
      [t.amount.value, t.payee ?? null, t.category ?? null],
    ]),
  );
}

/** The rows list_changes names for one change (asked by its audit id: every row). */
async function idsOf(call: Call, auditId: string): Promise<string[]> {
  const page = await call("list_changes", { audit_id: auditId });
  expect(page.changes, `list_changes audit_id ${auditId}`).to.have.length(1);
  expect(page.changes[0].more_ids, "one change asked for by id names every row").to.equal(undefined);
  return [...page.changes[0].ids].sort();
}

export async function journey(call: Call, walletName: string): Promise<JourneyOutcome> {
  const { wallet } = await call("create_wallet", { name: walletName, type: "checking", currency: "EUR", opening_balance: "1000.00" });

  // A statement import: previewed, then committed.
  const statement = [
    "Date,Description,Amount",
    `${daysAgo(6)},REWE Markt,-42.75`,
    `${daysAgo(5)},Blue Bottle Coffee,-4.50`,
    `${daysAgo(4)},Muster AG Gehalt,2500.00`,
    `${daysAgo(3)},REWE Markt,-60.00`,
    "",
  ].join("\n");
  const preview = await call("import_transactions", { wallet_id: wallet.id, statement, dry_run: true });
  expect(preview.counts).to.include({ rows: 4, new: 4, to_create: 4 });
  const imported = await call("import_transactions", { wallet_id: wallet.id, statement });
  expect(imported.counts).to.include({ rows: 4, created: 4 });
  const afterImport = await ledger(call, wallet.id);
  expect([...afterImport.values()].map(([amount, payee]) => `${amount} ${payee}`).sort()).to.deep.equal(
    ["-42.75 REWE Markt", "-4.50 Blue Bottle Coffee", "2500.00 Muster AG Gehalt", "-60.00 REWE Markt"].sort(),
  );
  const importedIds = [...afterImport.keys()].sort();

  // A bulk edit with its preview id, then its undo.
  const edit = { filter: { wallet_id: wallet.id, query: "REWE" }, expected_count: 2, set_category: "Groceries" };
  const shown = await call("update_transactions", { ...edit, dry_run: true });
  expect(shown.preview_id).to.be.a("string");
  const bulk = await call("update_transactions", { ...edit, preview_id: shown.preview_id });
  expect(bulk).to.include({ status: "committed", matched: 2, changed: 2 });
  const reweIds = [...afterImport]
    .filter(([, [, payee]]) => payee === "REWE Markt")
    .map(([id]) => id)
    .sort();
  expect(
    [...(await ledger(call, wallet.id))]
      .filter(([, [, , category]]) => category === "Groceries")
      .map(([id]) => id)
      .sort(),
  ).to.deep.equal(reweIds);
  const undoBulkPreview = await call("undo_change", { audit_id: bulk.audit_id, dry_run: true });
  expect(
    undoBulkPreview.rows
      .filter((r: { table: string }) => r.table === "transactions")
      .map((r: { id: string }) => r.id)
      .sort(),
  ).to.deep.equal(reweIds);
  const undoBulk = await call("undo_change", { audit_id: bulk.audit_id });
  expect(await ledger(call, wallet.id)).to.deep.equal(afterImport);

  // A purchase refunded in part; the delete takes the refund along, and its undo brings both back, linked.
  const purchase = (await call("create_transaction", { wallet_id: wallet.id, amount: "139.99", direction: "expense", payee: "IKEA", date: daysAgo(2) }))
    .transaction;
  const refund = (
    await call("create_transaction", {
      wallet_id: wallet.id,
      amount: "60.00",
      direction: "income",
      payee: "Flatmate",
      refund_of: purchase.id,
      date: daysAgo(1),
    })
  ).transaction;
  const deleted = await call("delete_transaction", { transaction_id: purchase.id, refunds: "delete" });
  expect(deleted.refunds.map((t: { id: string }) => t.id)).to.deep.equal([refund.id]);
  expect((await ledger(call, wallet.id)).has(refund.id)).to.equal(false);
  const undoDelete = await call("undo_change", { audit_id: deleted.audit_id });
  const restored = await call("list_transactions", { wallet_id: wallet.id, query: "Flatmate" });
  expect(restored.transactions.map((t: { id: string; refund_of?: string }) => [t.id, t.refund_of])).to.deep.equal([[refund.id, purchase.id]]);

  // The forecast starts from the balance the journey left: 1000.00 + 2392.75 − 139.99 + 60.00.
  const forecast = await call("get_cash_flow_forecast", { days: 30 });
  const mine = forecast.wallets.find((w: { wallet_id: string }) => w.wallet_id === wallet.id);
  expect(mine.balance.value).to.equal("3312.76");

  // list_changes names every row each change touched.
  expect(await idsOf(call, imported.audit_id)).to.deep.equal(importedIds);
  expect(await idsOf(call, bulk.audit_id)).to.deep.equal(reweIds);
  expect(await idsOf(call, undoBulk.audit_id)).to.deep.equal(reweIds);
  expect(await idsOf(call, deleted.audit_id)).to.deep.equal([purchase.id, refund.id].sort());
  expect(await idsOf(call, undoDelete.audit_id)).to.deep.equal([purchase.id, refund.id].sort());
  const day = await call("list_changes", { limit: 10 });
  const summaries = new Map(day.changes.map((c: { audit_id: string; summary: string }) => [c.audit_id, c.summary]));
  expect(summaries.get(imported.audit_id)).to.equal(`imported 4 transactions into ${walletName} from a CSV statement`);
  expect(summaries.get(deleted.audit_id)).to.equal(
    `deleted expense -139.99 EUR IKEA on ${daysAgo(2)}, ${walletName}, with its refund 60.00 EUR Flatmate on ${daysAgo(1)}`,
  );
  return { walletId: wallet.id, importAuditId: imported.audit_id, importedIds };
}

/**
 * A statement in words no list knows (issue 48): unsigned amounts whose direction only the column "Art"
 * tells. The preview asks, the commit waits until the person answers, the answer books the right signs.
 * `month` 0 is this month's file; the next file of the layout (month 1) is read by the remembered answer,
 * after a restart too.
 */
export async function unfamiliarStatement(call: Call, walletId: string, month: 0 | 1): Promise<void> {
  const day = (n: number) => daysAgo(n + (month === 0 ? 20 : 0));
  const statement = [
    "Datum,Empfänger,Betrag,Art",
    `${day(9)},Stadtwerke,80.00,Belast.`,
    `${day(8)},Muster AG,2500.00,Gutschr.`,
    `${day(7)},Bäckerei,4.10,Belast.`,
    "",
  ].join("\n");
  if (month === 0) {
    const preview = await call("import_transactions", { wallet_id: walletId, statement, dry_run: true });
    const asked = (preview.warnings as { code: string; message: string }[]).find((w) => w.message.includes("sign_out"));
    expect(asked?.code, JSON.stringify(preview.warnings)).to.equal("mapping_unsure");
    expect(asked!.message).to.include('"Art"').and.include('"Belast."');
    let refused = "";
    await call("import_transactions", { wallet_id: walletId, statement }).catch((e: Error) => (refused = e.message));
    expect(refused, "the commit waits for the person's answer").to.include("mapping.sign_out");
    await call("import_transactions", { wallet_id: walletId, statement, mapping: { sign: "Art", sign_out: "Belast." } });
  } else {
    await call("import_transactions", { wallet_id: walletId, statement });
  }
  const amounts = (await call("list_transactions", { wallet_id: walletId, limit: 100 })).transactions.map((t: { amount: { value: string } }) => t.amount.value);
  const once = ["-80.00", "2500.00", "-4.10"];
  expect([...amounts].sort()).to.deep.equal((month === 0 ? once : [...once, ...once]).sort());
}
