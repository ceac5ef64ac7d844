/** Pins that every update tool refuses a call that changes nothing, naming the fields it could change. */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { seedExampleWorld } from "../contract/example-world.js";

const CASES: [tool: string, idParam: string, id: string][] = [
  ["update_wallet", "wallet_id", "wal_example0000000001"],
  ["update_transaction", "transaction_id", "txn_example0000000001"],
  ["update_budget", "budget_id", "bud_example0000000001"],
  ["update_goal", "goal_id", "gol_example0000000001"],
  ["update_bill_reminder", "bill_reminder_id", "bil_example0000000001"],
];

describe(`update tools refuse an update that changes nothing (${engine})`, () => {
  let server: TestServer;
  let token: string;
  let auditRows: number;
  const countAudit = async () => Number((await server.db("audit_log").count({ n: "*" }))[0]!.n);
  before(async () => {
    server = await startTestServer();
    token = await seedExampleWorld(server);
    // The example world holds the audit entry undo_change's example takes back.
    auditRows = await countAudit();
  });
  after(async () => server.close());

  for (const [tool, idParam, id] of CASES) {
    it(tool, async () => {
      const err = await server.callError(tool, { [idParam]: id, idempotency_key: randomUUID() }, token);
      expect(err.data.code).to.equal("invalid_params");
      const changeable = toolsByName.get(tool)!.paramNames.filter((n) => ![idParam, "idempotency_key", "dry_run", "currency"].includes(n)); // currency asserts the amount's currency, it changes nothing (docs/decisions.md#safe-writes-choices)
      expect(changeable.length).to.be.greaterThan(2);
      for (const field of changeable) expect(err.data.expected, field).to.contain(field);
      expect(await countAudit(), "no audit entry written").to.equal(auditRows);
    });
  }
});
