/**
 * What a statement may put into the ledger is what the tools allow (issue 41): a description longer than
 * the spec's Description maxLength is cut there, and the answer says so.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { stringMaxLengths } from "../../generated/limits.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`import_transactions: bounds of what a statement writes (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  it("a 200,000-character description is cut at the tools' limit, and the answer says how many were", async () => {
    const me = await server.createUser();
    const { wallet } = await server.call(
      "create_wallet",
      { name: "Giro", type: "checking", currency: "EUR", opening_balance: "0", idempotency_key: randomUUID() },
      me.token,
    );
    const long = "Verwendungszweck ".repeat(12_000).slice(0, 200_000);
    const qif = `!Type:Bank\nD11/01/2026\nT-12.50\nPCorner shop\nM${long}\n^\nD11/02/2026\nT-3.00\nPBakery\nMRolls\n^\n`;
    const answer = await server.call("import_transactions", { wallet_id: wallet.id, statement: qif, idempotency_key: randomUUID() }, me.token);
    expect(answer.counts.created).to.equal(2);
    const max = stringMaxLengths.Description;
    expect(answer.warnings.find((w: any) => w.code === "descriptions_cut")?.message).to.equal(
      `1 row has a description longer than ${max} characters; it is cut there.`,
    );
    const { transactions } = await server.call("list_transactions", { wallet_id: wallet.id, limit: 10 }, me.token);
    const shop = transactions.find((t: any) => t.payee === "Corner shop");
    expect(shop.description).to.equal(long.slice(0, max).trimEnd());
    expect(transactions.find((t: any) => t.payee === "Bakery").description).to.equal("Rolls");
    // What was stored is what update_transaction could write: the same text passes its schema.
    const edited = await server.call(
      "update_transaction",
      { transaction_id: shop.id, description: shop.description, idempotency_key: randomUUID() },
      me.token,
    );
    expect(edited.transaction.description).to.equal(shop.description);
  });
});
