/**
 * The examples of openrpc.json for the ten wallet and transaction tools are real: over a seeded world that
 * matches them (the example wallets and transactions, with their ids), each example's params are sent
 * through the server and the answer must equal the example's result. Only what the server generates is
 * let through as "any": new ids (where the example shows a non-example id), audit ids, and the
 * milliseconds of timestamps. Reads run first, then the writes in an order that keeps the others' data.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { foldedKeys, foldKey } from "../../src/domain/shared/text.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const ORDER = [
  "list_wallets",
  "get_wallet_balance",
  "list_transactions",
  "get_transaction_summary",
  "delete_wallet",
  "create_transaction",
  // After create_transaction: its refund example refunds the purchase the delete example previews.
  "delete_transaction",
  "create_wallet",
  "update_wallet",
  "update_transaction",
];

interface Example {
  name: string;
  params: { name: string; value: unknown }[];
  result?: { value: unknown };
}

/** Compares an answer to an example result, letting generated values through. */
function matchExample(actual: unknown, expected: unknown, path: string, generated: Map<string, string>): void {
  if (typeof expected === "string") {
    expect(actual, path).to.be.a("string");
    const a = actual as string;
    const id = /^(wal|txn|trf)_/.exec(expected);
    if (id && !expected.includes("example")) {
      // A new id: any id of that kind, the same one wherever the example repeats it.
      expect(a.startsWith(id[0]), path).to.equal(true);
      const seen = generated.get(expected);
      if (seen) expect(a, `${path} (same id as before)`).to.equal(seen);
      else generated.set(expected, a);
      return;
    }
    if (path.endsWith(".audit_id")) expect(a, path).to.match(/^\d+$/);
    else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(expected)) expect(a.replace(/\.\d{3}Z$/, "Z"), path).to.equal(expected);
    else expect(a, path).to.equal(expected);
    return;
  }
  if (Array.isArray(expected)) {
    expect(actual, path).to.be.an("array").with.length(expected.length);
    expected.forEach((e, i) => matchExample((actual as unknown[])[i], e, `${path}[${i}]`, generated));
    return;
  }
  if (expected !== null && typeof expected === "object") {
    expect(actual, path).to.be.an("object");
    expect(Object.keys(actual as object).sort(), path).to.deep.equal(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected)) matchExample((actual as Record<string, unknown>)[k], v, `${path}.${k}`, generated);
    return;
  }
  expect(actual, path).to.deep.equal(expected);
}

async function seedExampleWorld(server: TestServer, user: TestUser): Promise<void> {
  const at = "2026-01-02T15:04:05Z";
  const wallet = (id: string, name: string, type: string, opening: number, openingDate: string | null, archived: boolean, notes: string | null) => ({
    id: `wal_example000000000${id}`,
    user_id: user.id,
    name,
    name_normalized: foldKey(name),
    type,
    currency: "USD",
    opening_balance_minor: opening,
    opening_date: openingDate,
    archived,
    notes,
    created_at: at,
    updated_at: at,
  });
  await server
    .db("wallets")
    .insert([
      wallet("1", "Everyday Checking", "checking", 150000, "2026-01-01", false, null),
      wallet("2", "Savings", "savings", 500000, "2026-01-01", false, "Emergency money lives here"),
      wallet("3", "Old Cash Jar", "cash", 0, null, true, null),
    ]);
  const checking = "wal_example0000000001";
  const savings = "wal_example0000000002";
  let n = 1;
  const rows: Record<string, unknown>[] = [];
  const tags: Record<string, unknown>[] = [];
  const txn = (t: {
    date: string;
    minor: number;
    direction: string;
    payee?: string;
    description?: string;
    category?: string;
    tags?: string[];
    wallet?: string;
    transfer?: [string, string];
    created?: string;
  }) => {
    const id = `txn_example${String(n++).padStart(10, "0")}`;
    rows.push({
      id,
      user_id: user.id,
      wallet_id: t.wallet ?? checking,
      date: t.date,
      amount_minor: t.minor,
      currency: "USD",
      direction: t.direction,
      payee: t.payee ?? null,
      description: t.description ?? null,
      category: t.category ?? null,
      ...foldedKeys({ payee: t.payee ?? null, category: t.category ?? null }),
      transfer_id: t.transfer?.[0] ?? null,
      counterpart_wallet_id: t.transfer?.[1] ?? null,
      created_at: t.created ?? `${t.date}T12:00:00Z`,
      updated_at: t.created ?? `${t.date}T12:00:00Z`,
    });
    for (const tag of t.tags ?? []) tags.push({ transaction_id: id, user_id: user.id, tag });
  };
  // The example transaction itself.
  txn({
    date: "2026-03-14",
    minor: -4275,
    direction: "expense",
    payee: "Trader Joe's",
    description: "Weekly groceries",
    category: "Groceries",
    tags: ["food"],
    created: "2026-03-14T18:22:05Z",
  });
  // March: salary 3200.00; rent 900.00; 8 more groceries (269.65, so 9 make 312.40); dining 32.90 in 3 → 14 transactions.
  txn({ date: "2026-03-01", minor: 320000, direction: "income", payee: "Employer", category: "Salary" });
  txn({ date: "2026-03-02", minor: -90000, direction: "expense", payee: "Landlord", category: "Rent" });
  for (const [i, minor] of [3000, 3120, 2845, 3500, 4000, 3310, 3690, 3500].entries()) {
    txn({
      date: `2026-03-${String(3 + i).padStart(2, "0")}`,
      minor: -minor,
      direction: "expense",
      payee: "Safeway",
      category: "Groceries",
      tags: ["household"],
    });
  }
  for (const [i, minor] of [1250, 1040, 1000].entries())
    txn({ date: `2026-03-1${i}`, minor: -minor, direction: "expense", payee: "Diner", category: "Dining" });
  // February: a transfer of 2500.00 to savings and freelance income of 1185.85, so that checking ends at
  // 1500.00 + 3200.00 − 1245.30 − 2500.00 + 1185.85 = 2140.55 and savings at 5000.00 + 2500.00 = 7500.00.
  txn({ date: "2026-02-01", minor: -250000, direction: "transfer", transfer: ["trf_example0000000001", savings] });
  txn({ date: "2026-02-01", minor: 250000, direction: "transfer", wallet: savings, transfer: ["trf_example0000000001", checking] });
  txn({ date: "2026-02-10", minor: 118585, direction: "income", payee: "Client", category: "Freelance" });
  await server.db("transactions").insert(rows);
  await server.db("transaction_tags").insert(tags);
}

describe(`openrpc.json examples of the wallet and transaction tools (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-03-15T14:30:00Z") });
    user = await server.createUser({ timezone: "UTC" });
    await seedExampleWorld(server, user);
  });
  after(async () => server?.close());

  const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8")) as { methods: { name: string; examples: Example[] }[] };
  const methods = spec.methods;
  it("covers the ten tools", () => {
    expect(ORDER.every((name) => methods.some((m) => m.name === name))).to.equal(true);
  });

  for (const name of ORDER) {
    const method = methods.find((m) => m.name === name)!;
    // Error examples (x-error, no result) are replayed in the spec's own example world (test/contract/replay.test.ts).
    for (const example of (method?.examples ?? []).filter((e) => e.result !== undefined)) {
      it(`${name}: ${example.name}`, async () => {
        const params = Object.fromEntries(example.params.map((p) => [p.name, structuredClone(p.value)]));
        const answer = await server.call(name, params, user.token);
        matchExample(answer, example.result!.value, name, new Map());
        if (name === "create_transaction" && answer.counterpart) {
          expect(answer.counterpart.transfer_id).to.equal(answer.transaction.transfer_id);
          expect(answer.counterpart.id).to.not.equal(answer.transaction.id);
        }
      });
    }
  }
});
