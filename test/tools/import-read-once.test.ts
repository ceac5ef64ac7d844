/**
 * A statement is read once per call, before the write's transaction (issue 51: for a credit-card wallet
 * or a remembered mapping it was read again inside the transaction, and another user waited 12–14 s on
 * SQLite). Counted, not timed: the domain import inside a transaction, given the statement read before
 * it, reads no statement; what that reading depended on changing in between (the wallet's remembered
 * mapping) refuses the call with conflict instead of reading again.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { provisionalIds } from "../../src/db/ids.js";
import { importStatement, prepareStatement } from "../../src/domain/imports/import.js";
import { statementReads } from "../../src/statements/bounded.js";
import { AppError } from "../../src/errors.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const october = "Kontostand vom 31.10.2026:;100,00 €\nDatum;Empfänger;Betrag\n01.10.2026;Rent;-50,00\n02.10.2026;Grocer;-20,00\n";
const november = "Kontostand vom 30.11.2026:;30,00 €\nDatum;Empfänger;Betrag\n01.11.2026;Rent;-50,00\n03.11.2026;Cafe;-3,20\n";

describe(`import reads its statement once, before the transaction (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer({}, { now: () => new Date("2026-11-25T12:00:00Z") })));
  after(async () => server?.close());

  it("a card wallet with a remembered mapping: no read inside the transaction; a mapping changed meanwhile is a conflict", async () => {
    const me = await server.createUser({ currency: "EUR" });
    const card = (await server.call("create_wallet", { name: "Visa", type: "credit_card", currency: "EUR", idempotency_key: randomUUID() }, me.token)).wallet.id as string;
    // The first commit remembers the mapping for this layout.
    await server.call("import_transactions", { wallet_id: card, statement: october, idempotency_key: randomUUID() }, me.token);
    const input = { walletId: card, statement: november, importRows: [], skipInvalid: true, dryRun: true, now: new Date("2026-11-25T12:00:00Z"), ids: provisionalIds };
    const prepared = await prepareStatement(server.db, me.id, input);
    expect(prepared.card).to.equal(true);
    expect(prepared.remembered).to.not.equal(null);
    const before = statementReads.count;
    const outcome = await server.db.transaction((trx) => importStatement(trx, me.id, { ...input, prepared }));
    expect(statementReads.count - before, "statements read inside the transaction").to.equal(0);
    expect(outcome.mappingSource?.source).to.equal("remembered");
    expect(outcome.rows).to.have.length(2);

    // The remembered mapping saved again after the statement was read: refused, not read again.
    await server.db("import_mappings").where({ user_id: me.id, wallet_id: card }).update({ updated_at: "2026-11-25T12:30:00.000Z" });
    const again = statementReads.count;
    const refused = await server.db.transaction((trx) => importStatement(trx, me.id, { ...input, prepared })).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(AppError);
    expect((refused as AppError).errorName).to.equal("conflict");
    expect(statementReads.count - again).to.equal(0);
  });
});
