/**
 * Argument values never reach a log line (docs/reliability.md). A real server process logs at `info`;
 * every tool of the registry is called with its spec example, every free-text argument set to a marker
 * (ids are replaced by real ones where the example's would not exist, so writes succeed and store the
 * marker), and a write is forced to fail inside the database with the marker among its bound values (the
 * driver's error then names the statement). The marker is in no line the process wrote.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "chai";
import type { Knex } from "knex";
import { tools } from "../../generated/registry.js";
import { createDb } from "../../src/db/knex.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { withFailingInsert } from "../helpers/forced-failure.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";

const MARKER = "zqxmarker7731";

interface Example {
  params: { name: string; value: unknown }[];
}
const examples = new Map<string, Example[]>(
  (JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8")) as { methods: { name: string; examples?: Example[] }[] }).methods.map(
    (m) => [m.name, m.examples ?? []],
  ),
);

/** A string argument a person types (no pattern, format or enum): it gets the marker. */
function freeText(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false;
  const types = ([] as unknown[]).concat(schema.type);
  return types.includes("string") && !schema.pattern && !schema.format && !schema.enum && !schema.const;
}

describe(`faults: no argument value in any log line (${engine})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let db: Knex;
  let server: ServerProcess;

  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    server = await startServerProcess(database.url, { LOG_LEVEL: "info", RATE_LIMIT_MCP_PER_MINUTE: "100000" }, { logs: true });
  });
  after(async () => {
    await server?.stop();
    await db?.destroy();
    await database?.drop();
  });

  it("calls every tool with the marker in its free text, forces a database failure with it, and finds it in no log line", async () => {
    const user = await insertUserWithToken(db);
    const call = (tool: string, params: Record<string, unknown>) => callOver(server.mcpUrl, user.token, tool, params);
    const wallet = (await call("create_wallet", { name: `${MARKER} wallet`, type: "cash", currency: "USD", notes: MARKER, idempotency_key: randomUUID() })).body
      .result.wallet;
    const real: Record<string, string> = { wallet_id: wallet.id, from_wallet_id: wallet.id };
    const txn = (
      await call("create_transaction", {
        wallet_id: wallet.id,
        direction: "expense",
        amount: "1.00",
        payee: MARKER,
        description: MARKER,
        notes: MARKER,
        category: MARKER,
        tags: [MARKER],
        idempotency_key: randomUUID(),
      })
    ).body.result;
    real.transaction_id = txn.transaction.id;

    let answered = 0;
    for (const tool of tools) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const example of examples.get(tool.name) ?? []) {
        const params: Record<string, unknown> = {};
        for (const { name, value } of example.params) {
          params[name] = name === "idempotency_key" ? randomUUID() : (real[name] ?? (freeText(props[name]) ? MARKER : value));
        }
        for (const [name, schema] of Object.entries(props)) if (!(name in params) && freeText(schema)) params[name] = MARKER;
        const r = await call(tool.name, params);
        expect(r.status, `${tool.name} answered`).to.be.lessThan(500);
        answered++;
      }
    }
    expect(answered).to.be.at.least(tools.length);

    // A failure inside the database, with the marker among the statement's bound values.
    const failed = await withFailingInsert(db, "transactions", () =>
      call("create_transaction", {
        wallet_id: wallet.id,
        direction: "expense",
        amount: "2.00",
        description: MARKER,
        notes: MARKER,
        idempotency_key: randomUUID(),
      }),
    );
    expect(failed.body.error.data.code).to.equal("internal_error");

    if (engine === "postgres") {
      // A driver message that quotes the value itself, as Postgres's own messages can ("invalid input
      // syntax for type bigint: \"…\"", a constraint's "Key (…)=(…)").
      await db.raw(`CREATE FUNCTION test_quote_value() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused value %', NEW.description; END $$`);
      await db.raw("CREATE TRIGGER test_quote_value BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION test_quote_value()");
      try {
        const quoted = await call("create_transaction", {
          wallet_id: wallet.id,
          direction: "expense",
          amount: "3.00",
          description: MARKER,
          idempotency_key: randomUUID(),
        });
        expect(quoted.body.error.data.code).to.equal("internal_error");
      } finally {
        await db.raw("DROP TRIGGER test_quote_value ON transactions");
        await db.raw("DROP FUNCTION test_quote_value()");
      }
    }

    await new Promise((r) => setTimeout(r, 200)); // the last lines reach the pipe
    expect(
      server.logs.some((l) => l.includes("unhandled_error")),
      "the forced failure was logged",
    ).to.equal(true);
    expect(server.logs.length).to.be.greaterThan(answered);
    const leaks = server.logs.filter((l) => l.includes(MARKER));
    expect(leaks, leaks.slice(0, 3).join("\n")).to.deep.equal([]);
  });
});
