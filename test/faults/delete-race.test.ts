/**
 * A wallet deleted while another call writes to it: found by the fuzz suite on Postgres, where a
 * delete_wallet dry run could check "no transactions" just before a concurrent create_transaction
 * inserted one, and the delete then failed on the foreign key as internal_error. The delete now locks the
 * wallet row first; a foreign-key violation that still happens (the writer checked the wallet just before
 * it was deleted) is a conflict naming no argument, never an internal_error. Bounded: 25 rounds.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { translateDriverError } from "../../src/db/errors.js";
import { AppError } from "../../src/errors.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`faults: deleting a wallet while another call writes to it (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server?.close());

  it("answers every call of 25 racing rounds with a result or a named refusal, never internal_error", async () => {
    const codes = new Set<string>();
    for (let round = 0; round < 25; round++) {
      const wallet = (await server.call("create_wallet", { name: `Race ${round}`, type: "cash", currency: "USD", idempotency_key: randomUUID() }, user.token))
        .wallet.id;
      const answers = await Promise.all([
        server.rpc(
          { jsonrpc: "2.0", id: 1, method: "delete_wallet", params: { wallet_id: wallet, idempotency_key: randomUUID(), dry_run: round % 2 === 0 } },
          user.token,
        ),
        server.rpc(
          {
            jsonrpc: "2.0",
            id: 2,
            method: "create_transaction",
            params: { wallet_id: wallet, amount: "1.00", direction: "expense", idempotency_key: randomUUID() },
          },
          user.token,
        ),
      ]);
      for (const a of answers) {
        expect(a.status, JSON.stringify(a.body)).to.be.below(500);
        if (a.body.error) codes.add(a.body.error.data.code);
      }
    }
    expect(
      [...codes].every((c) => ["wallet_not_empty", "not_found", "conflict"].includes(c)),
      [...codes].join(", "),
    ).to.equal(true);
  });

  it("translates a foreign-key violation into conflict", async () => {
    let thrown: unknown;
    try {
      await server.db("transaction_tags").insert({ transaction_id: "txn_doesnotexist000001", user_id: user.id, tag: "x" });
    } catch (err) {
      thrown = err;
    }
    const translated = translateDriverError(thrown);
    expect(translated).to.be.instanceOf(AppError);
    expect((translated as AppError).errorName).to.equal("conflict");
  });
});
