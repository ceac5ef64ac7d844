/**
 * Answers sized for a model (issue 13, item 4), over the demo ledger (several months, two currencies,
 * budgets, goals, bills): the content text of list_capabilities with every scope, of one listed
 * transaction, and of every read at its largest page size stays within src/mcp/answer-budgets.ts.
 * The text is the compact rendering of structuredContent (src/mcp/model-text.ts).
 */
import { expect } from "chai";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { authenticateBearer } from "../../src/auth/tokens.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { ANSWER_BUDGETS } from "../../src/mcp/answer-budgets.js";
import { modelText } from "../../src/mcp/model-text.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const tokens = (s: string) => encode(s).length;

describe(`answers sized for a model (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let user: TestUser;
  const text = async (name: string, args: Record<string, unknown>) => {
    const a = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, user.token);
    expect(a.body.result?.isError ?? false, JSON.stringify(a.body)).to.equal(false);
    expect(a.body.result.content[0].text).to.equal(modelText(a.body.result.structuredContent));
    return { text: a.body.result.content[0].text as string, data: a.body.result.structuredContent };
  };
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    const caller = await authenticateBearer(server.db, `Bearer ${user.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller);
  });
  after(async () => server.close());

  it(`list_capabilities with every scope is at most ${ANSWER_BUDGETS.listCapabilitiesTokens} tokens`, async () => {
    const { text: t, data } = await text("list_capabilities", {});
    expect(data.tools.length).to.be.greaterThan(20);
    expect(tokens(t)).to.be.at.most(ANSWER_BUDGETS.listCapabilitiesTokens);
  });

  it(`a listed transaction is at most ${ANSWER_BUDGETS.listedTransactionTokens} tokens: no nulls, no minor, no timestamps, the currency once`, async () => {
    const { data } = await text("list_transactions", { limit: 50 });
    expect(data.transactions.length).to.equal(50);
    for (const tx of data.transactions) {
      const t = modelText(tx);
      // A transfer leg carries two more opaque ids (transfer_id, counterpart_wallet_id): ~125 tokens.
      if (tx.direction !== "transfer") expect(tokens(t), t).to.be.at.most(ANSWER_BUDGETS.listedTransactionTokens);
      expect(t).to.not.match(/null|minor|created_at|updated_at/);
      expect(t.split(tx.currency).length - 1, t).to.equal(1);
    }
  });

  it(`no read answers more than ${ANSWER_BUDGETS.anyAnswerTokens} tokens at its largest page size`, async () => {
    const today = new Date().toISOString().slice(0, 10);
    const calls: [string, Record<string, unknown>][] = [
      ["list_transactions", { limit: 200 }],
      ["get_transaction_summary", { date_from: "1900-01-01", date_to: today, group_by: "payee" }],
      ["list_budgets", {}],
      ["get_budget_status", {}],
      ["list_goals", { include_archived: true }],
      ["get_goal_progress", {}],
      ["list_wallets", { include_archived: true }],
      ["get_wallet_balance", {}],
      ["list_bill_reminders", { days_ahead: 366, include_inactive: true }],
      ["search_product_knowledge", { query: "how do budgets work", limit: 20 }],
      ["list_capabilities", {}],
      ["whoami", {}],
    ];
    for (const [name, args] of calls) {
      const { text: t } = await text(name, args);
      expect(tokens(t), name).to.be.at.most(ANSWER_BUDGETS.anyAnswerTokens);
    }
  });
});
