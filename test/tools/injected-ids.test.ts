/**
 * Ids come from ctx.ids, which the server takes like its clock: with sequential ids injected, a test
 * knows every id a write will make, down to both legs of a transfer, without seeding raw rows.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { sequentialIds } from "../../src/db/ids.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`injected ids (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => (server = await startTestServer({}, { ids: sequentialIds() })));
  after(async () => server?.close());

  it("makes every id of a write from the injected source", async () => {
    const { token } = await server.createUser();
    const key = () => randomUUID();
    const a = await server.call("create_wallet", { name: "A", type: "checking", currency: "EUR", idempotency_key: key() }, token);
    const b = await server.call("create_wallet", { name: "B", type: "savings", currency: "EUR", idempotency_key: key() }, token);
    expect([a.wallet.id, b.wallet.id]).to.deep.equal(["wal_0000000000000001", "wal_0000000000000002"]);

    const moved = await server.call("create_transaction", { wallet_id: a.wallet.id, to_wallet_id: b.wallet.id, direction: "transfer", amount: "10.00", idempotency_key: key() }, token);
    expect(moved.transaction.id).to.equal("txn_0000000000000001");
    expect(moved.transaction.transfer_id).to.equal("trf_0000000000000001");

    const goal = await server.call("create_goal", { name: "Trip", currency: "EUR", idempotency_key: key() }, token);
    expect(goal.goal.id).to.equal("gol_0000000000000001");
    const budget = await server.call("create_budget", { name: "Food", amount: "300.00", currency: "EUR", period: "month", idempotency_key: key() }, token);
    expect(budget.budget.id).to.equal("bud_0000000000000001");
  });
});
