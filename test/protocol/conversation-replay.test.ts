/**
 * Answer economy over a whole conversation (issue 49, item 5): the 20 requests of the held-out
 * conversation (a statement pasted into chat, a refund across wallets, safe to spend until payday, a
 * what-if trip, a cancelled subscription, a foreign currency purchase, a stale preview, tagging by ids,
 * budgets, a chart, a delete with a refund, sharing with a partner, net worth, the day's changes, taking
 * tags off) replayed over MCP on the demo ledger, each answer's text (what a model reads: content, the
 * app line included, errors too) counted with the project's o200k counter (scripts/answer-measure.ts).
 * The whole conversation reads at most CONVERSATION_TOKENS, and every answer is checked for what makes it
 * true (the figure, the guard, the state it reports). Also held here: the app line only on reads (and a
 * preview) whose app draws a picture, never on a committed write; and no null cell unless the
 * instructions say what it means. Both engines.
 *
 * The count is of the text with every random value (an id, a preview id, the token's name and expiry, the
 * server's port) replaced by a fixed stand-in of the same alphabet and length, chosen by its order of
 * appearance: a random id of 22 characters reads as 12 to 17 tokens, and the ~80 in the conversation moved
 * the total by ±40 from run to run, so a budget near the total failed on some runs only.
 */
import { createHash, randomUUID } from "node:crypto";
import { expect } from "chai";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { tokens } from "../../scripts/answer-measure.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

/** What the 20 requests may cost a model, all answers together (the run read 19,426). */
export const CONVERSATION_TOKENS = 13_000;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64URL = `${BASE62}-_`;
/** The random part of each value a model reads, with the alphabet it is drawn from; prefixes and dots stay as they are. */
const RANDOM: [RegExp, string][] = [
  [/(?<=\b[a-z]{2,4}_)[0-9A-Za-z]{22}\b/g, BASE62], // an id: txn_…, wal_…
  [/(?<=\bpv1\.\d+\.)[0-9a-z]+(?=\.)/g, "0123456789abcdefghijklmnopqrstuvwxyz"], // a preview id's issue time
  [/(?<=\bpv1\.\d+\.[0-9a-z]+\.)[\w-]{22}\.[\w-]{22}\b/g, BASE64URL], // and its nonce and digest
  [/(?<=\btest )[0-9a-f]{8}\b/g, "0123456789abcdef"], // the test token's name
  [/(?<=127\.0\.0\.1:)\d+/g, "0123456789"], // the server's port
  [/(?<="expires_at":")[^"]+/g, ""], // the token's expiry, from the real clock: one fixed time
];

/** The text with each distinct random value replaced by the same fixed stand-in on every run (see above). */
function steady(text: string, seen: Map<string, string>): string {
  for (const [pattern, alphabet] of RANDOM) {
    text = text.replace(pattern, (value) => {
      let standIn = seen.get(value);
      if (standIn === undefined) {
        const digest = createHash("sha256").update(`stand-in ${seen.size}`).digest();
        standIn = alphabet ? value.replace(/[^.]/g, (_, i: number) => alphabet[digest[i % digest.length]! % alphabet.length]!) : "2036-11-25T09:30:00.000Z";
        seen.set(value, standIn);
      }
      return standIn;
    });
  }
  return text;
}

const NOW = new Date("2026-11-25T09:30:00Z");
const TODAY = "2026-11-25";

/** The statement the person pastes into the chat: their current account's last days, as the bank's CSV. */
const STATEMENT = [
  "Date,Payee,Purpose,Amount",
  "2026-11-09,Edeka,Kartenzahlung,-23.17",
  "2026-11-10,Apotheke am Markt,Kartenzahlung,-14.20",
  "2026-11-11,Lidl,Kartenzahlung,-31.66",
  "2026-11-12,Cafe Rosa,Kartenzahlung,-6.40",
  "2026-11-13,Amazon EU,Bestellung 302-118,-27.99",
  "2026-11-14,Rossmann,Kartenzahlung,-9.35",
  "2026-11-15,Aral,Tankstelle,-54.10",
  "2026-11-16,Kino Atlantis,Kartenzahlung,-22.00",
  "2026-11-17,Edeka,Kartenzahlung,-41.08",
  "2026-11-18,REWE Markt,Kartenzahlung,-38.40",
  "2026-11-19,Zalando SE,Erstattung Bestellung 1029,59.95",
  "2026-11-20,Shell,Tankstelle,-61.20",
  "2026-11-21,dm-drogerie markt,Kartenzahlung,-12.85",
  "2026-11-22,Cafe Rosa,Kartenzahlung,-8.90",
  "2026-11-23,Deutsche Bahn,Ticket Hamburg,-79.00",
  "2026-11-24,Booking.com,Hotel Hamburg,-240.00",
].join("\n");

interface Answer {
  text: string;
  isError: boolean;
  data: Record<string, any>;
}

describe(`a 20-request conversation reads at most ${CONVERSATION_TOKENS.toLocaleString("en")} answer tokens (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let me: TestUser;
  const read: { request: number; tool: string; tokens: number; text: string; isError: boolean }[] = [];
  let request = 0;
  const standIns = new Map<string, string>();

  /** One tools/call over MCP as a model makes it; its text is counted for the current request. */
  async function call(name: string, args: Record<string, unknown>): Promise<Answer> {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, me.token);
    expect(a.body.error, JSON.stringify(a.body)).to.equal(undefined);
    const result = a.body.result;
    const text = (result.content as { text: string }[]).map((c) => c.text).join("\n");
    read.push({ request, tool: name, tokens: tokens(steady(text, standIns)), text, isError: result.isError === true });
    return { text, isError: result.isError === true, data: result.structuredContent ?? {} };
  }
  const write = (name: string, args: Record<string, unknown>) => call(name, { idempotency_key: randomUUID(), ...args });
  const ok = (a: Answer) => {
    expect(a.isError, a.text).to.equal(false);
    return a.data;
  };
  const errorCode = (a: Answer) => {
    expect(a.isError, a.text).to.equal(true);
    return JSON.parse(a.text.slice(a.text.indexOf("error.data: ") + "error.data: ".length)).code as string;
  };

  before(async () => {
    server = await startTestServer({}, { now: () => NOW });
    me = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${me.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, NOW);
    const wallets = (await server.call("list_wallets", {}, me.token)).wallets as { id: string; name: string }[];
    const card = wallets.find((w) => w.name === "Credit card")!.id;
    // Earlier in the month, before the conversation: the shoes bought on the card.
    await server.call(
      "create_transaction",
      { wallet_id: card, date: "2026-11-12", amount: "59.95", direction: "expense", payee: "Zalando", category: "Shopping", idempotency_key: randomUUID() },
      me.token,
    );
  });
  after(async () => server?.close());

  it("replays the conversation, every answer true, within the budget", async () => {
    // 1. "What can you see of my finances?"
    request = 1;
    const who = ok(await call("whoami", {}));
    expect(who.today).to.equal(TODAY);
    const wallets = ok(await call("list_wallets", {})).wallets as { id: string; name: string; currency: string }[];
    const id = (name: string) => wallets.find((w) => w.name === name)!.id;
    const checking = id("Everyday checking");
    const card = id("Credit card");

    // 2. A statement pasted into chat: preview, then commit with its preview_id.
    request = 2;
    const preview = ok(await write("import_transactions", { wallet_id: checking, statement: STATEMENT, dry_run: true }));
    expect(preview.counts).to.include({ rows: 16, new: 16 });
    const key = randomUUID();
    const imported = ok(await call("import_transactions", { wallet_id: checking, statement: STATEMENT, preview_id: preview.preview_id, idempotency_key: key }));
    expect(imported.counts.created).to.equal(16);
    expect(imported.status).to.equal("committed");

    // 3. "The Zalando credit is the refund of the shoes I bought on the card."
    request = 3;
    const zalando = ok(await call("list_transactions", { query: "Zalando" })).transactions as { id: string; wallet_id: string; direction: string }[];
    const shoes = zalando.find((t) => t.direction === "expense" && t.wallet_id === card)!;
    const credit = zalando.find((t) => t.direction === "income" && t.wallet_id === checking)!;
    const marked = ok(await write("update_transaction", { transaction_id: credit.id, refund_of: shoes.id }));
    expect(marked.transaction).to.include({ refund: true, refund_of: shoes.id });

    // 4. "How much can I safely spend until payday without my checking account dropping below 500?"
    request = 4;
    const safe = ok(await call("get_cash_flow_forecast", { wallet_ids: [checking], buffer: "500.00" }));
    expect(safe.wallets.map((w: { wallet_id: string }) => w.wallet_id)).to.deep.equal([checking]);
    expect(BigInt(safe.safe_to_spend.minor)).to.equal(BigInt(safe.lowest_until_income.balance.minor) - 50000n);

    // 5. "And if we take a trip for 1,200 on 12 December?"
    request = 5;
    const trip = ok(
      await call("get_cash_flow_forecast", {
        wallet_ids: [checking],
        buffer: "500.00",
        what_if: [{ date: "2026-12-12", amount: "1200.00", direction: "expense", label: "Trip" }],
      }),
    );
    // The trip is the checking account's (the one wallet named): its row and the total agree.
    expect(trip.wallets[0].end_balance.minor).to.equal(safe.wallets[0].end_balance.minor - 120000);
    expect(trip.daily.total.at(-1)).to.equal(trip.daily.wallets[0].at(-1));

    // 6. "I cancelled Netflix: what does it cost a year, and what does that free up?"
    request = 6;
    const recurring = ok(await call("list_recurring", {}));
    const netflix = recurring.recurring.find((r: { payee: string }) => r.payee === "Netflix");
    expect(netflix).to.include({ kind: "subscription" });
    expect(recurring.recurring.find((r: { payee: string }) => r.payee === "Hausverwaltung Krüger").kind).to.equal("bill");
    expect(recurring.totals.every((t: { counts: string }) => typeof t.counts === "string")).to.equal(true);
    const freed = ok(await call("get_cash_flow_forecast", { wallet_ids: [card], cancel: ["Netflix"] }));
    expect(freed.low_point_events.some((e: { label: string }) => e.label === "Netflix")).to.equal(false);

    // 7. A foreign currency purchase: 89 USD on the EUR card is refused; booked in EUR as charged.
    request = 7;
    expect(
      errorCode(await write("create_transaction", { wallet_id: card, amount: "89.00", currency: "USD", direction: "expense", payee: "Thomann" })),
    ).to.equal("invalid_params");
    const headphones = ok(
      await write("create_transaction", {
        wallet_id: card,
        amount: "82.40",
        direction: "expense",
        payee: "Thomann",
        description: "Headphones, 89.00 USD",
        category: "Shopping",
      }),
    );
    expect(headphones.transaction.amount.value).to.equal("-82.40");

    // 8. Tagging by ids: the train and the hotel of the statement, previewed.
    request = 8;
    const week = ok(await call("list_transactions", { wallet_id: checking, date_from: "2026-11-18" })).transactions as { id: string; date: string }[];
    const hamburg = week.filter((t) => t.date >= "2026-11-23" && t.date <= "2026-11-24").map((t) => t.id);
    expect(hamburg).to.have.length(2);
    const tagPreview = ok(await write("update_transactions", { filter: {}, transaction_ids: hamburg, expected_count: 2, add_tags: ["trip"], dry_run: true }));
    expect(tagPreview.matched).to.equal(2);

    // 9. A stale preview: the hotel is renamed before the tagging is confirmed; the commit is refused, previewed again, committed.
    request = 9;
    ok(await write("update_transaction", { transaction_id: hamburg[0], payee: "Hotel Alster" }));
    expect(
      errorCode(
        await write("update_transactions", { filter: {}, transaction_ids: hamburg, expected_count: 2, add_tags: ["trip"], preview_id: tagPreview.preview_id }),
      ),
    ).to.equal("stale_preview");
    const again = ok(await write("update_transactions", { filter: {}, transaction_ids: hamburg, expected_count: 2, add_tags: ["trip"], dry_run: true }));
    const tagged = ok(
      await write("update_transactions", { filter: {}, transaction_ids: hamburg, expected_count: 2, add_tags: ["trip"], preview_id: again.preview_id }),
    );
    expect(tagged.status).to.equal("committed");

    // 10. "How are my budgets doing?"
    request = 10;
    const budgets = ok(await call("list_budgets", {})).budgets as { id: string }[];
    expect(budgets.length).to.be.greaterThan(2);
    // Drawn as gauges: every budget in one call.
    expect(ok(await call("get_budget_status", {})).budgets).to.have.length(budgets.length);

    // 11. A chart: this month's spending by category.
    request = 11;
    const summary = ok(await call("get_transaction_summary", { date_from: "2026-11-01", date_to: TODAY, group_by: "category" }));
    expect(summary.groups.length).to.be.greaterThan(3);

    // 12. "Delete the shoes, keep the refund as income": refused until refunds says so, previewed, deleted.
    request = 12;
    expect(errorCode(await write("delete_transaction", { transaction_id: shoes.id }))).to.equal("invalid_params");
    ok(await write("delete_transaction", { transaction_id: shoes.id, refunds: "keep", dry_run: true }));
    const deleted = ok(await write("delete_transaction", { transaction_id: shoes.id, refunds: "keep" }));
    expect(deleted.refunds[0]).to.include({ id: credit.id });

    // 13. "How do I let my partner see this, without changing anything?"
    request = 13;
    const found = ok(await call("search_product_knowledge", { query: "give my partner read-only access", limit: 3 })).results as { id: string }[];
    expect(found[0]!.id).to.equal("kb_share-with-partner");
    const article = ok(await call("get_knowledge_article", { id: found[0]!.id })).article;
    expect(article.body).to.include("/api/v1/mcp/read").and.include("/account");

    // 14. "What's my net worth?"
    request = 14;
    const worth = ok(await call("get_net_worth", { from: "2026-06-01", step: "month" }));
    expect(worth.points).to.have.length(7); // the 1st of June to November, and today

    // 15. "What changed today?"
    request = 15;
    // As the chatbot asked it: the day, at the default page.
    const changes = ok(await call("list_changes", { day: TODAY })).changes as { tool: string }[];
    expect(changes.map((c) => c.tool)).to.include.members(["import_transactions", "update_transaction", "update_transactions", "delete_transaction"]);

    // 16. "Take the trip tag off again."
    request = 16;
    const untag = ok(await write("update_transactions", { filter: {}, transaction_ids: hamburg, expected_count: 2, remove_tags: ["trip"], dry_run: true }));
    ok(await write("update_transactions", { filter: {}, transaction_ids: hamburg, expected_count: 2, remove_tags: ["trip"], preview_id: untag.preview_id }));

    // 17. "What's on my checking account now?"
    request = 17;
    ok(await call("get_wallet_balance", { wallet_id: checking }));

    // 18. "Which bills are due in the next two weeks?"
    request = 18;
    ok(await call("list_bill_reminders", { days_ahead: 14 }));

    // 19. "How much did I spend on groceries this month?"
    request = 19;
    ok(await call("get_transaction_summary", { date_from: "2026-11-01", date_to: TODAY, category: "Groceries" }));

    // 20. "How is my savings goal going?"
    request = 20;
    const goals = ok(await call("list_goals", {})).goals as { id: string }[];
    ok(await call("get_goal_progress", { goal_id: goals[0]!.id }));

    if (process.env.REPLAY_DUMP) (await import("node:fs")).writeFileSync(process.env.REPLAY_DUMP, JSON.stringify(read, null, 1));
    const perRequest = Array.from({ length: 20 }, (_, i) => read.filter((r) => r.request === i + 1).reduce((a, r) => a + r.tokens, 0));
    const total = perRequest.reduce((a, b) => a + b, 0);
    const table = read.map((r) => `${r.request}\t${r.tool}${r.isError ? " (error)" : ""}\t${r.tokens}`).join("\n");
    expect(total, `answer tokens per call:\n${table}\nper request: ${perRequest.join(", ")}`).to.be.at.most(CONVERSATION_TOKENS);
  });

  it("says the app view only under a read (or a preview) whose app draws it, never under a committed write", () => {
    const withLine = read.filter((r) => r.text.includes("App view"));
    expect(withLine.map((r) => r.tool)).to.include.members(["get_cash_flow_forecast", "get_transaction_summary", "get_net_worth", "get_budget_status"]);
    for (const r of withLine) {
      if (r.tool === "import_transactions") expect(r.text, "a committed import").to.include('"status":"dry_run"');
      expect(r.isError, r.text).to.equal(false);
    }
    const committed = read.filter((r) => r.text.includes('"status":"committed"'));
    expect(committed.length).to.be.greaterThan(5);
    for (const r of committed) expect(r.text, r.tool).to.not.include("App view");
  });

  it("has a null cell only where the instructions say what it means", async () => {
    const init = await server.rpc(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "replay", version: "1" } },
      },
      me.token,
    );
    const instructions = init.body.result.instructions as string;
    const withNullCell = read.filter((r) => /[[,]null[,\]]/.test(r.text));
    // The demo's bills table has one (a variable bill has no expected amount): the instructions must say what it means.
    expect(withNullCell.map((r) => r.tool)).to.include("list_bill_reminders");
    expect(instructions).to.include("null: the row lacks it");
    expect(instructions).to.not.match(/no null/);
  });

  it("gives the same columns in the same order to two previews of one kind", () => {
    const columnsOf = (text: string) => [...text.matchAll(/"columns":(\[[^\]]*\])/g)].map((m) => m[1]);
    const previews = read.filter((r) => r.tool === "update_transactions" && r.text.includes('"status":"dry_run"') && r.text.includes("trip"));
    expect(previews.length).to.be.at.least(3);
    const first = columnsOf(previews[0]!.text);
    for (const p of previews.slice(1)) expect(columnsOf(p.text)).to.deep.equal(first);
  });
});
